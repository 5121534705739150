// Independent hierarchy: every level's product compared in one procedural loop, from the
// last level down, replacing on "<=" so that the lowest index wins a tie.
module roofline_hierarchy #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0]          cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic                                   mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0]            binding_o
);
  localparam int W = INT_BITS + FRAC_BITS;
  logic [2*W-1:0] products [LEVELS];
  logic [2*W-1:0] scaled_peak, best;
  integer i;
  always @* begin
    scaled_peak = {{(W-FRAC_BITS){1'b0}}, peak_i, {FRAC_BITS{1'b0}}};
    best        = scaled_peak;
    binding_o   = LEVELS[$clog2(LEVELS+1)-1:0];
    cap_o       = peak_i;
    mem_bound_o = 1'b0;
    for (i = LEVELS - 1; i >= 0; i = i - 1) begin
      products[i] = {{W{1'b0}}, ai_i[i*W +: W]} * {{W{1'b0}}, bw_i[i*W +: W]};
      if (products[i] < scaled_peak) begin
        mem_bound_o = 1'b1;
        level_cap_o[i*W +: W] = W'((products[i] + (2*W)'(1 << (FRAC_BITS - 1))) >> FRAC_BITS);
      end else begin
        level_cap_o[i*W +: W] = peak_i;
      end
    end
    for (i = LEVELS - 1; i >= 0; i = i - 1) begin
      if (products[i] < scaled_peak && products[i] <= best) begin
        best      = products[i];
        binding_o = i[$clog2(LEVELS+1)-1:0];
        cap_o     = level_cap_o[i*W +: W];
      end
    end
  end
endmodule
