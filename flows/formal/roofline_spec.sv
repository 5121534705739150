`default_nettype none
// The specification's rules written again, for the properties to compare the RTL with, sharing
// no code with rtl/: every comparison at full precision, as the spec states it.
//
// roofline_spec_round: one level's verdict and cap from its full-precision product ai * bw.
//   memory-bound when product < peak * 2^FRAC_BITS (at the ridge the compute roof binds);
//   the cap is the product rounded to nearest, ties up, when memory-bound, and peak otherwise.
module roofline_spec_round #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]     peak,
  input  logic [2*(INT_BITS+FRAC_BITS)-1:0] product,
  output logic                              mem_bound,
  output logic [INT_BITS+FRAC_BITS-1:0]     cap,
  output logic [2*(INT_BITS+FRAC_BITS):0]   rounded     // round(product / 2^FRAC_BITS), never truncated
);
  localparam int W = INT_BITS + FRAC_BITS;
  assign mem_bound = product < ((2*W)'(peak) << FRAC_BITS);
  assign rounded   = ({1'b0, product} + ((2*W+1)'(1) << (FRAC_BITS - 1))) >> FRAC_BITS;
  assign cap       = mem_bound ? rounded[W-1:0] : peak;
endmodule

// roofline_spec_tree_product: ai * bw summed as a MUL_STAGES-stage multiplier's tree, for the
// proofs whose induction a full multiplier keeps from closing (PROP_TREE). Stage 0's node k is ai's
// slice k (CHUNKS = 2^(MUL_STAGES-1) slices of CHUNK_W bits, ai zero-padded to CHUNKS * CHUNK_W)
// times bw; stage t's node k is stage t-1's node 2k plus its node 2k+1 shifted up by the width of
// stage t-1's slices. The product is the last stage's node 0. lemma_tree_product proves it equal
// to ai * bw on every input, so a proof against it is a proof against the specification.
module roofline_spec_tree_product #(
  parameter int W          = 8,
  parameter int MUL_STAGES = 1,
  parameter int CHUNKS     = 1 << (MUL_STAGES - 1),        // derived: leave at their defaults
  parameter int CHUNK_W    = (W + CHUNKS - 1) / CHUNKS,
  parameter int NODE_W     = CHUNKS * CHUNK_W + W
) (
  input  logic [W-1:0]                         ai,
  input  logic [W-1:0]                         bw,
  output logic [MUL_STAGES*CHUNKS*NODE_W-1:0]  nodes,     // node (t, k) at bits [(t * CHUNKS + k) * NODE_W +: NODE_W]
  output logic [2*W-1:0]                       product
);
  logic [CHUNKS*CHUNK_W-1:0] ai_pad;
  assign ai_pad = (CHUNKS*CHUNK_W)'(ai);
  for (genvar k = 0; k < CHUNKS; k++) begin : g_leaf
    assign nodes[k*NODE_W +: NODE_W] = NODE_W'(ai_pad[k*CHUNK_W +: CHUNK_W]) * NODE_W'(bw);
  end
  for (genvar t = 1; t < MUL_STAGES; t++) begin : g_stage
    for (genvar k = 0; k < CHUNKS; k++) begin : g_node
      localparam int AT = (t * CHUNKS + k) * NODE_W;
      if (k < (CHUNKS >> t)) begin : g_sum
        localparam int LOW = ((t - 1) * CHUNKS + 2 * k) * NODE_W;
        assign nodes[AT +: NODE_W] = nodes[LOW +: NODE_W] + (nodes[LOW + NODE_W +: NODE_W] << (CHUNK_W << (t - 1)));
      end else begin : g_unused
        assign nodes[AT +: NODE_W] = '0;
      end
    end
  end
  assign product = (2*W)'(nodes[(MUL_STAGES - 1) * CHUNKS * NODE_W +: NODE_W]);
endmodule

// roofline_spec_levels: from every level's full-precision product, its verdict and cap; the binding
// level found pairwise: level l binds when it is memory-bound and no other memory-bound level m has
// a lower product, or an equal one with m < l. binding is LEVELS when no level is memory-bound.
module roofline_spec_levels #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]            peak,
  input  logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] product,
  output logic [LEVELS-1:0]                        level_mem_bound,
  output logic [LEVELS-1:0]                        binds,     // exactly one bit set, or none
  output logic [INT_BITS+FRAC_BITS-1:0]            cap,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   level_cap,
  output logic                                     mem_bound,
  output logic [$clog2(LEVELS+1)-1:0]              binding
);
  localparam int W     = INT_BITS + FRAC_BITS;
  localparam int IDX_W = $clog2(LEVELS + 1);

  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    logic [2*W:0] unused_rounded;
    roofline_spec_round #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) u_round (
      .peak, .product(product[l*2*W +: 2*W]), .mem_bound(level_mem_bound[l]), .cap(level_cap[l*W +: W]),
      .rounded(unused_rounded)
    );
    // Beaten by a memory-bound level m with a lower product, or an equal one and a lower index.
    logic [LEVELS-1:0] beaten_by;
    for (genvar m = 0; m < LEVELS; m++) begin : g_other
      if (m < l) begin : g_lower
        assign beaten_by[m] = level_mem_bound[m] && product[m*2*W +: 2*W] <= product[l*2*W +: 2*W];
      end else if (m > l) begin : g_higher
        assign beaten_by[m] = level_mem_bound[m] && product[m*2*W +: 2*W] < product[l*2*W +: 2*W];
      end else begin : g_self
        assign beaten_by[m] = 1'b0;
      end
    end
    assign binds[l] = level_mem_bound[l] && beaten_by == '0;
  end

  assign mem_bound = |level_mem_bound;
  always_comb begin
    binding = IDX_W'(LEVELS);
    cap     = peak;
    for (int l = 0; l < LEVELS; l++) begin
      if (binds[l]) begin
        binding = IDX_W'(l);
        cap     = level_cap[l*W +: W];
      end
    end
  end
endmodule

// roofline_spec_hierarchy: every level's product ai * bw, and roofline_spec_levels on them.
// MUL_TREE 0: each product is ai * bw; n > 0: roofline_spec_tree_product's n-stage sum, which
// lemma_tree_product proves equal.
module roofline_spec_hierarchy #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3,
  parameter int MUL_TREE  = 0
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]            peak,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   bw,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   ai,
  output logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] product,
  output logic [LEVELS-1:0]                        level_mem_bound,
  output logic [LEVELS-1:0]                        binds,     // exactly one bit set, or none
  output logic [INT_BITS+FRAC_BITS-1:0]            cap,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   level_cap,
  output logic                                     mem_bound,
  output logic [$clog2(LEVELS+1)-1:0]              binding
);
  localparam int W = INT_BITS + FRAC_BITS;

  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    if (MUL_TREE == 0) begin : g_product
      assign product[l*2*W +: 2*W] = (2*W)'(ai[l*W +: W]) * (2*W)'(bw[l*W +: W]);
    end else begin : g_tree
      localparam int CHUNKS = 1 << (MUL_TREE - 1);
      logic [MUL_TREE*CHUNKS*(CHUNKS*((W + CHUNKS - 1) / CHUNKS)+W)-1:0] unused_nodes;
      roofline_spec_tree_product #(.W(W), .MUL_STAGES(MUL_TREE)) u_tree (
        .ai(ai[l*W +: W]), .bw(bw[l*W +: W]), .nodes(unused_nodes), .product(product[l*2*W +: 2*W])
      );
    end
  end
  roofline_spec_levels #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) u_levels (
    .peak, .product, .level_mem_bound, .binds, .cap, .level_cap, .mem_bound, .binding
  );
endmodule
`default_nettype wire
