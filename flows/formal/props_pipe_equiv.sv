// roofline_hierarchy_pipe against roofline_hierarchy: with every input accepted and every
// result taken, each result equals the combinational module's result on the input LATENCY
// cycles earlier. Proved by bounded model checking from reset to a depth past the latency:
// every data register is overwritten on each advance, so a result depends only on the one
// input it came from, and the bound covers every value of that input.
module props_pipe_equiv #(
  parameter int INT_BITS   = 3,
  parameter int FRAC_BITS  = 3,
  parameter int LEVELS     = 2,
  parameter int MUL_STAGES = 1
) (
  input logic                                   clk_i,
  input logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i
);
  localparam int W       = INT_BITS + FRAC_BITS;
  localparam int IDX_W   = $clog2(LEVELS + 1);
  localparam int LATENCY = 3 + MUL_STAGES;
  localparam int IN_W    = W + 2 * LEVELS * W;

  logic       rst_n = 1'b0;
  logic [3:0] cycle = '0;
  always @(posedge clk_i) begin
    rst_n <= 1'b1;
    if (cycle != '1) cycle <= cycle + 4'd1;
  end

  // The inputs, delayed by the pipeline's latency, drive the combinational module.
  logic [LATENCY*IN_W-1:0] in_delay;
  logic [W-1:0]            d_peak;
  logic [LEVELS*W-1:0]     d_bw, d_ai;
  always @(posedge clk_i) in_delay <= {in_delay[(LATENCY-1)*IN_W-1:0], peak_i, bw_i, ai_i};
  assign {d_peak, d_bw, d_ai} = in_delay[(LATENCY-1)*IN_W +: IN_W];

  logic [W-1:0]        cap_c, cap_p;
  logic [LEVELS*W-1:0] level_cap_c, level_cap_p;
  logic                mem_bound_c, mem_bound_p, out_valid, in_ready;
  logic [IDX_W-1:0]    binding_c, binding_p;

  roofline_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) comb (
    .peak_i(d_peak), .bw_i(d_bw), .ai_i(d_ai),
    .cap_o(cap_c), .level_cap_o(level_cap_c), .mem_bound_o(mem_bound_c), .binding_o(binding_c)
  );
  roofline_hierarchy_pipe #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .MUL_STAGES(MUL_STAGES)) pipe (
    .clk_i, .rst_ni(rst_n), .in_valid_i(1'b1), .in_ready_o(in_ready), .peak_i, .bw_i, .ai_i,
    .out_valid_o(out_valid), .out_ready_i(1'b1),
    .cap_o(cap_p), .level_cap_o(level_cap_p), .mem_bound_o(mem_bound_p), .binding_o(binding_p)
  );

  always @* begin
`ifdef PROP_PIPE_EQUALS_COMBINATIONAL
    if (rst_n && out_valid) assert ({cap_p, level_cap_p, mem_bound_p, binding_p} == {cap_c, level_cap_c, mem_bound_c, binding_c});
`endif
`ifdef PROP_ONE_RESULT_PER_CLOCK
    // Accepting every cycle, and a result every cycle once the first has come through.
    assert (in_ready);
    if (cycle > 4'(LATENCY)) assert (out_valid);
`endif
  end
endmodule
