`default_nettype none
// Attainable performance of one kernel against every memory level: the lowest cap binds.
//
// Level l is memory-bound when ai_l * bw_l < peak. The binding level is the memory-bound
// level with the smallest full-precision ai_l * bw_l, the lowest index on a tie; binding_o
// is LEVELS when no level is memory-bound (the compute roof binds). Combinational.
// Level l occupies bits [l*W +: W] of bw_i, ai_i and level_cap_o.
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
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;

  roofline_param_check #(
    .LEVELS(LEVELS)
  ) u_param_check ();

  logic [LEVELS*PRODUCT_W-1:0] level_product;
  logic [LEVELS-1:0]           level_mem_bound;

  for (genvar l = 0; l < LEVELS; l++) begin : gen_level
    roofline_level #(
      .INT_BITS (INT_BITS),
      .FRAC_BITS(FRAC_BITS)
    ) u_level (
      .peak_i     (peak_i),
      .bw_i       (bw_i[l*W +: W]),
      .ai_i       (ai_i[l*W +: W]),
      .product_o  (level_product[l*PRODUCT_W +: PRODUCT_W]),
      .mem_bound_o(level_mem_bound[l]),
      .cap_o      (level_cap_o[l*W +: W])
    );
  end

  roofline_binding #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS),
    .LEVELS   (LEVELS)
  ) u_binding (
    .peak_i     (peak_i),
    .product_i  (level_product),
    .mem_bound_i(level_mem_bound),
    .level_cap_i(level_cap_o),
    .cap_o      (cap_o),
    .binding_o  (binding_o)
  );

  assign mem_bound_o = |level_mem_bound;
endmodule
`default_nettype wire
