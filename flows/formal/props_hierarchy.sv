// Properties of roofline_hierarchy for every input, attached by its ports. For the relations
// (PROP_CAP_LE_PEAK ... PROP_BINDING_CAP_IS_THE_LOWEST) make prove cuts each multiplier (Yosys
// cutpoint), so they hold for every combination of full-precision products, a superset of those
// that ai * bw can produce. PROP_MATCHES_THE_SPEC compares every output with the specification
// (roofline_spec_hierarchy: the binding level found pairwise, the lowest index on a tie), with
// the multipliers; PROP_COVER reaches a tie of two memory-bound levels and a rounding tie.
module props_hierarchy #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i
);
  localparam int W     = INT_BITS + FRAC_BITS;
  localparam int IDX_W = $clog2(LEVELS + 1);
  logic [W-1:0]        cap;
  logic [LEVELS*W-1:0] level_cap;
  logic                mem_bound;
  logic [IDX_W-1:0]    binding;
  roofline_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) dut (
    .peak_i, .bw_i, .ai_i, .cap_o(cap), .level_cap_o(level_cap), .mem_bound_o(mem_bound), .binding_o(binding)
  );

  always @* begin
`ifdef PROP_CAP_LE_PEAK
    assert (cap <= peak_i);
`endif
`ifdef PROP_COMPUTE_BINDS_IFF_NO_LEVEL_IS_MEMORY_BOUND
    assert ((binding == IDX_W'(LEVELS)) == !mem_bound);
    assert (binding <= IDX_W'(LEVELS));
    if (binding == IDX_W'(LEVELS)) assert (cap == peak_i);
`endif
  end

`ifdef PROP_MATCHES_THE_SPEC
  `define ROOFLINE_SPEC
`endif
`ifdef PROP_COVER
  `define ROOFLINE_SPEC
`endif
`ifdef ROOFLINE_SPEC
  logic [W-1:0]                f_cap;
  logic [LEVELS*W-1:0]         f_level_cap;
  logic                        f_mem_bound;
  logic [IDX_W-1:0]            f_binding;
  logic [LEVELS*2*W-1:0]       f_product;
  logic [LEVELS-1:0]           f_level_mem_bound, f_binds;
  roofline_spec_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) u_spec (
    .peak(peak_i), .bw(bw_i), .ai(ai_i), .product(f_product), .level_mem_bound(f_level_mem_bound), .binds(f_binds),
    .cap(f_cap), .level_cap(f_level_cap), .mem_bound(f_mem_bound), .binding(f_binding)
  );
`endif
`ifdef PROP_MATCHES_THE_SPEC
  always @* begin
    assert (binding == f_binding);
    assert (cap == f_cap);
    assert (mem_bound == f_mem_bound);
    assert (level_cap == f_level_cap);
  end
`endif
`ifdef PROP_COVER
  always @* begin
    cover (binding == IDX_W'(LEVELS));
    cover (mem_bound && binding == '0);
    cover (mem_bound && binding == IDX_W'(LEVELS - 1));
    cover (f_level_mem_bound[0] && f_product[0 +: 2*W] == ((2*W)'(peak_i) << FRAC_BITS) - 1'b1);  // one step below the ridge
    cover (f_level_mem_bound[0] && f_product[0 +: FRAC_BITS] == FRAC_BITS'(1) << (FRAC_BITS - 1) && binding == '0);  // a rounding tie
  end
  if (LEVELS > 1) begin : g_tie
    always @* cover (f_level_mem_bound[0] && f_level_mem_bound[1] && f_product[0 +: 2*W] == f_product[2*W +: 2*W]
                     && f_product[0 +: 2*W] != '0 && binding == '0);   // a tie of two memory-bound levels
  end
`endif

  for (genvar l = 0; l < LEVELS; l++) begin : gen_level
    always @* begin
`ifdef PROP_BINDING_CAP_IS_ITS_LEVEL_CAP
      if (binding == IDX_W'(l)) assert (cap == level_cap[l*W +: W]);
`endif
`ifdef PROP_BINDING_CAP_IS_THE_LOWEST
      assert (cap <= level_cap[l*W +: W]);
`endif
    end
  end
endmodule
