`default_nettype none
// roofline_binding, the running minimum both hierarchies share, for every peak, every
// full-precision product and every level cap: its binding index and tie rule against the
// specification's pairwise rule (roofline_spec.sv's), with each level's verdict the one its
// product gives (the only inputs the hierarchies feed it).
module props_binding #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input logic [INT_BITS+FRAC_BITS-1:0]            peak_i,
  input logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] product_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   level_cap_i
);
  localparam int W     = INT_BITS + FRAC_BITS;
  localparam int IDX_W = $clog2(LEVELS + 1);

  // Each level's verdict from its product, as roofline_spec_round states it.
  logic [LEVELS-1:0] mem_bound;
  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    logic [W-1:0]   unused_cap;
    logic [2*W:0]   unused_rounded;
    roofline_spec_round #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) u_round (
      .peak(peak_i), .product(product_i[l*2*W +: 2*W]), .mem_bound(mem_bound[l]), .cap(unused_cap),
      .rounded(unused_rounded)
    );
  end

  logic [W-1:0]     cap;
  logic [IDX_W-1:0] binding;
  roofline_binding #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) dut (
    .peak_i, .product_i, .mem_bound_i(mem_bound), .level_cap_i, .cap_o(cap), .binding_o(binding)
  );

  // The pairwise rule: level l binds when it is memory-bound and no other memory-bound level has a
  // lower product, or an equal one and a lower index.
  logic [LEVELS-1:0] binds;
  for (genvar l = 0; l < LEVELS; l++) begin : g_rule
    logic [LEVELS-1:0] beaten_by;
    for (genvar m = 0; m < LEVELS; m++) begin : g_other
      if (m < l) begin : g_lower
        assign beaten_by[m] = mem_bound[m] && product_i[m*2*W +: 2*W] <= product_i[l*2*W +: 2*W];
      end else if (m > l) begin : g_higher
        assign beaten_by[m] = mem_bound[m] && product_i[m*2*W +: 2*W] < product_i[l*2*W +: 2*W];
      end else begin : g_self
        assign beaten_by[m] = 1'b0;
      end
    end
    assign binds[l] = mem_bound[l] && beaten_by == '0;
  end

  always @* begin
    assert ($onehot0(binds));
    assert ((binding == IDX_W'(LEVELS)) == (binds == '0));
    if (binding == IDX_W'(LEVELS)) assert (cap == peak_i);
  end
  for (genvar l = 0; l < LEVELS; l++) begin : g_check
    always @* begin
      if (binds[l]) assert (binding == IDX_W'(l) && cap == level_cap_i[l*W +: W]);
      if (LEVELS > 1 && l > 0) cover (binds[l] && mem_bound[0] && product_i[0 +: 2*W] == product_i[l*2*W +: 2*W]);
    end
  end
endmodule
`default_nettype wire
