// An independent pipeline: the whole hierarchy computed in the first stage, in one procedural
// block with its own rounding and a binding search from the last level down, then delayed
// through the remaining 2 + MUL_STAGES registers so that the latency is the documented
// 3 + MUL_STAGES. The chain moves as a whole when its last stage is empty or being read. None of
// the project's internal signals: make prove checks it by its ports alone.
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
  localparam int W      = INT_BITS + FRAC_BITS;
  localparam int IDX_W  = $clog2(LEVELS + 1);
  localparam int DEPTH  = 3 + MUL_STAGES;
  localparam int RES_W  = W + LEVELS * W + 1 + IDX_W;

  logic [RES_W-1:0] result;
  logic [2*W-1:0]   product, best, scaled_peak;
  logic [W-1:0]     cap;
  logic [LEVELS*W-1:0] caps;
  logic             any;
  logic [IDX_W-1:0] index;
  always @* begin
    scaled_peak = {{(W-FRAC_BITS){1'b0}}, peak_i, {FRAC_BITS{1'b0}}};
    best  = scaled_peak;
    index = LEVELS[IDX_W-1:0];
    cap   = peak_i;
    any   = 1'b0;
    caps  = '0;
    for (int i = LEVELS - 1; i >= 0; i = i - 1) begin
      product = {{W{1'b0}}, ai_i[i*W +: W]} * {{W{1'b0}}, bw_i[i*W +: W]};
      if (product < scaled_peak) begin
        any = 1'b1;
        caps[i*W +: W] = W'((product + (2*W)'(1 << (FRAC_BITS - 1))) >> FRAC_BITS);
        if (product <= best) begin
          best  = product;
          index = i[IDX_W-1:0];
          cap   = caps[i*W +: W];
        end
      end else begin
        caps[i*W +: W] = peak_i;
      end
    end
    result = {cap, caps, any, index};
  end

  logic [DEPTH-1:0]            full;
  logic [DEPTH-1:0][RES_W-1:0] held;
  logic                        move;
  assign move        = !full[DEPTH-1] || out_ready_i;
  assign in_ready_o  = move;
  assign out_valid_o = full[DEPTH-1];
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) full <= '0;
    else if (move) full <= {full[DEPTH-2:0], in_valid_i};
  end
  always_ff @(posedge clk_i) begin
    if (move) held <= {held[DEPTH-2:0], result};
  end
  assign {cap_o, level_cap_o, mem_bound_o, binding_o} = held[DEPTH-1];
endmodule
