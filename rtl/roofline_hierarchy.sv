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
  localparam int IDX_W     = $clog2(LEVELS + 1);
  localparam logic [IDX_W-1:0] COMPUTE_BINDS = IDX_W'(LEVELS);

  if (LEVELS < 1) begin : gen_levels_check
    // Elaboration stops here on every tool: the missing module's name is the message.
    ERROR_roofline_LEVELS_must_be_at_least_1 u_param_error ();
  end

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

  // A running minimum over the levels, in index order, starting from "compute binds": a
  // level takes the lead only when it is memory-bound and strictly lower, so the lowest
  // index wins a tie. One procedural block, so no simulator sees a combinational loop
  // through a chain of vectors.
  logic [PRODUCT_W-1:0] best_product;
  logic [IDX_W-1:0]     best_index;
  logic [W-1:0]         best_cap;

  always @* begin
    best_product = '1;
    best_index   = COMPUTE_BINDS;
    best_cap     = peak_i;
    for (int l = 0; l < LEVELS; l++) begin
      if (level_mem_bound[l] && (level_product[l*PRODUCT_W +: PRODUCT_W] < best_product)) begin
        best_product = level_product[l*PRODUCT_W +: PRODUCT_W];
        best_index   = IDX_W'(l);
        best_cap     = level_cap_o[l*W +: W];
      end
    end
  end

  logic [PRODUCT_W-1:0] unused_best_product;
  assign unused_best_product = best_product;

  assign cap_o       = best_cap;
  assign binding_o   = best_index;
  assign mem_bound_o = |level_mem_bound;
endmodule
