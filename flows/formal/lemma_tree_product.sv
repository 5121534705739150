`default_nettype none
// The lemma behind every PROP_TREE proof (make prove runs it before the task that names it):
// roofline_spec_tree_product's MUL_STAGES-stage sum equals ai * bw for every ai and bw of
// UQ(INT_BITS).(FRAC_BITS). No state, so k-induction closes at depth 1 and the proof covers every input.
module lemma_tree_product #(
  parameter int INT_BITS   = 4,
  parameter int FRAC_BITS  = 4,
  parameter int MUL_STAGES = 1
) (
  input logic [INT_BITS+FRAC_BITS-1:0] ai,
  input logic [INT_BITS+FRAC_BITS-1:0] bw
);
  localparam int W       = INT_BITS + FRAC_BITS;
  localparam int CHUNKS  = 1 << (MUL_STAGES - 1);
  localparam int NODES_W = MUL_STAGES * CHUNKS * (CHUNKS * ((W + CHUNKS - 1) / CHUNKS) + W);
  logic [NODES_W-1:0] unused_nodes;
  logic [2*W-1:0]     product;
  roofline_spec_tree_product #(.W(W), .MUL_STAGES(MUL_STAGES)) u_tree (.ai, .bw, .nodes(unused_nodes), .product);
  always_comb assert (product == (2*W)'(ai) * (2*W)'(bw));
endmodule
`default_nettype wire
