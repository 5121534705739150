`default_nettype none
// The binding level: the memory-bound level with the smallest full-precision product ai * bw,
// the lowest index on a tie; LEVELS (and cap_o = peak_i) when no level is memory-bound.
//
// A running minimum over the levels in index order, starting from "compute binds": a level
// takes the lead when it is memory-bound and either the first such or strictly lower. One procedural block, so no
// simulator sees a combinational loop through a chain of vectors. Shared by
// roofline_hierarchy and roofline_hierarchy_pipe. Combinational.
module roofline_binding #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]            peak_i,
  input  logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] product_i,    // level l at [l*2W +: 2W]
  input  logic [LEVELS-1:0]                        mem_bound_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   level_cap_i,
  output logic [INT_BITS+FRAC_BITS-1:0]            cap_o,
  output logic [$clog2(LEVELS+1)-1:0]              binding_o
);
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;
  localparam int IDX_W     = $clog2(LEVELS + 1);
  // A memory-bound product is below peak * 2^FRAC_BITS < 2^(W+FRAC_BITS) (roofline_round_cap),
  // so two of them compare on their low COMPARE_W bits: a shorter carry chain. The first
  // memory-bound level needs no comparison at all.
  localparam int COMPARE_W = W + FRAC_BITS;
  localparam logic [IDX_W-1:0] COMPUTE_BINDS = IDX_W'(LEVELS);

  roofline_param_check #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS),
    .LEVELS   (LEVELS)
  ) u_param_check ();

  logic [COMPARE_W-1:0] best_product;
  logic [COMPARE_W-1:0] unused_best_product;

  always_comb begin
    best_product = '0;
    binding_o    = COMPUTE_BINDS;
    cap_o        = peak_i;
    for (int l = 0; l < LEVELS; l++) begin
      if (mem_bound_i[l]
          && (binding_o == COMPUTE_BINDS || product_i[l*PRODUCT_W +: COMPARE_W] < best_product)) begin
        best_product = product_i[l*PRODUCT_W +: COMPARE_W];
        binding_o    = IDX_W'(l);
        cap_o        = level_cap_i[l*W +: W];
      end
    end
  end

  assign unused_best_product = best_product;
endmodule
`default_nettype wire
