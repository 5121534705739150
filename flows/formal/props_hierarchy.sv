// Properties of roofline_hierarchy for every input. make prove cuts each level's multiplier
// (Yosys cutpoint), so they hold for every combination of full-precision products, a
// superset of those that ai * bw can produce.
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
