`default_nettype none
// Properties of roofline_hierarchy_pipe, attached by its ports: they check any implementation
// of its contract. Every input, valid and ready pattern is free but for a reset in the first
// cycle and the rules of a legal source at the input.
//
// roofline_stream_props gives the handshake: the valid/ready rules on both pairs, the readiness
// rule, the scoreboard (no result without an input, at most LATENCY = 3 + MUL_STAGES in flight)
// and, with PROP_SINK_WAITS and PROP_FULL_RATE, the bounded liveness and the full-rate checks.
// PROP_DATA: each result offered equals the specification's (roofline_spec_hierarchy: every level
// at full precision, the binding level found pairwise) on the oldest input in flight: every
// result right, in order, none lost, none repeated.
// PROP_TREE (with PROP_DATA): the specification's products are roofline_spec_tree_product's sums, and
// each input's result is worked out as it is taken and kept beside the FIFO; make prove proves
// lemma_tree_product (the sum is ai * bw for every input) before such a task, so the property is
// the same. Its invariants move copies of each input's tree and result with the stages.
//
// ROOFLINE_PROBES (make prove defines it when the design has the signals; see sby.py): the
// project's own registers, connected after flattening (probe_<name> is the design's <name>),
// and invariants over them that let k-induction close. A drop-in without them is checked by the
// same port properties, bounded from reset when induction does not close without them.
module props_hierarchy_pipe #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int MUL_STAGES = 1
) (
  input logic                                   clk_i,
  input logic                                   rst_ni,
  input logic                                   in_valid_i,
  input logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i,
  input logic                                   out_ready_i
);
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;
  localparam int IDX_W     = $clog2(LEVELS + 1);
  localparam int LATENCY   = 3 + MUL_STAGES;
  localparam int IN_W      = W + 2 * LEVELS * W;            // {peak, bw, ai}
  localparam int OUT_W     = W + LEVELS * W + 1 + IDX_W;    // {cap, level_cap, mem_bound, binding}
  localparam int DEPTH_W   = LATENCY > 1 ? $clog2(LATENCY) : 1;
  localparam int SEQ_W     = DEPTH_W + 1;
`ifdef PROP_SINK_WAITS
  localparam int SINK_WAIT = 3;
`else
  localparam int SINK_WAIT = 0;
`endif
`ifdef PROP_FULL_RATE
  localparam bit FULL_RATE = 1'b1;
`else
  localparam bit FULL_RATE = 1'b0;
`endif
`ifdef PROP_TREE
  localparam int SPEC_TREE = MUL_STAGES;   // the specification's products as the tree's sums (lemma_tree_product)
`else
  localparam int SPEC_TREE = 0;
`endif

  logic                in_ready_o, out_valid_o, mem_bound_o;
  logic [W-1:0]        cap_o;
  logic [LEVELS*W-1:0] level_cap_o;
  logic [IDX_W-1:0]    binding_o;

  roofline_hierarchy_pipe #(
    .INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .MUL_STAGES(MUL_STAGES)
  ) dut (
    .clk_i, .rst_ni, .in_valid_i, .in_ready_o, .peak_i, .bw_i, .ai_i,
    .out_valid_o, .out_ready_i, .cap_o, .level_cap_o, .mem_bound_o, .binding_o
  );

  logic [SEQ_W-1:0]                   f_in, f_out;
  logic [(1 << DEPTH_W)-1:0][IN_W-1:0] f_fifo;
  logic [IN_W-1:0]                    f_head;
  roofline_stream_props #(
    .IN_W(IN_W), .OUT_W(OUT_W), .LATENCY(LATENCY), .SINK_WAIT(SINK_WAIT), .FULL_RATE(FULL_RATE)
  ) u_stream (
    .clk_i, .rst_ni, .in_valid(in_valid_i), .in_ready(in_ready_o), .in_data({peak_i, bw_i, ai_i}),
    .out_valid(out_valid_o), .out_ready(out_ready_i), .out_data({cap_o, level_cap_o, mem_bound_o, binding_o}),
    .f_in_o(f_in), .f_out_o(f_out), .fifo_o(f_fifo), .head_o(f_head)
  );

`ifdef PROP_DATA
`ifdef PROP_TREE
  // The specification's result of each input, worked out as the input is taken (on the ports, so
  // no multiplier sits behind the scoreboard's multiplexer) and kept by its sequence number beside
  // the scoreboard's FIFO: the same port property as below, the result offered against its input's.
  logic [OUT_W-1:0]                     f_result_in;
  logic [(1 << DEPTH_W)-1:0][OUT_W-1:0] f_results;
  logic [LEVELS*PRODUCT_W-1:0]          f_in_product;
  logic [LEVELS-1:0]                    f_in_level_mem_bound, f_in_binds;
  roofline_spec_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .MUL_TREE(SPEC_TREE)) u_in_spec (
    .peak(peak_i), .bw(bw_i), .ai(ai_i), .product(f_in_product), .level_mem_bound(f_in_level_mem_bound),
    .binds(f_in_binds), .cap(f_result_in[OUT_W-1 -: W]), .level_cap(f_result_in[IDX_W + 1 +: LEVELS*W]),
    .mem_bound(f_result_in[IDX_W]), .binding(f_result_in[0 +: IDX_W])
  );
  always_ff @(posedge clk_i) if (rst_ni && in_valid_i && in_ready_o) f_results[f_in[DEPTH_W-1:0]] <= f_result_in;
  always_comb begin
    if (rst_ni && out_valid_o) assert ({cap_o, level_cap_o, mem_bound_o, binding_o} == f_results[f_out[DEPTH_W-1:0]]);
  end
`else
  // The specification's result of the oldest input in flight.
  logic [W-1:0]                f_cap;
  logic [LEVELS*W-1:0]         f_level_cap;
  logic                        f_mem_bound;
  logic [IDX_W-1:0]            f_binding;
  logic [LEVELS*PRODUCT_W-1:0] f_product;
  logic [LEVELS-1:0]           f_level_mem_bound, f_binds;
  roofline_spec_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .MUL_TREE(SPEC_TREE)) u_spec (
    .peak(f_head[2*LEVELS*W +: W]), .bw(f_head[LEVELS*W +: LEVELS*W]), .ai(f_head[0 +: LEVELS*W]),
    .product(f_product), .level_mem_bound(f_level_mem_bound), .binds(f_binds),
    .cap(f_cap), .level_cap(f_level_cap), .mem_bound(f_mem_bound), .binding(f_binding)
  );
  always_comb begin
    if (rst_ni && out_valid_o) begin
      assert (cap_o == f_cap);
      assert (level_cap_o == f_level_cap);
      assert (mem_bound_o == f_mem_bound);
      assert (binding_o == f_binding);
    end
  end
`endif
`endif

  // ---------------------------------------------------------------- the project's registers
`ifdef ROOFLINE_PROBES
  localparam int STAGES   = LATENCY;
  localparam int CHUNKS   = 1 << (MUL_STAGES - 1);
  localparam int CHUNK_W  = (W + CHUNKS - 1) / CHUNKS;
  localparam int AI_PAD_W = CHUNKS * CHUNK_W;
  localparam int NODE_W   = AI_PAD_W + W;
  localparam int NODES    = MUL_STAGES * LEVELS * CHUNKS;
  (* keep *) logic [STAGES-1:0] probe_valid_q;   // stage s holds a transaction

  // Stage s's transaction has the sequence number of the results delivered before it: the
  // valid stages after s come out first.
  logic [STAGES-1:0][SEQ_W-1:0] f_seq;
  always_comb begin
    logic [SEQ_W-1:0] next;
    next = f_out;
    for (int s = STAGES - 1; s >= 0; s--) begin
      f_seq[s] = next;
      if (probe_valid_q[s]) next = next + 1'b1;
    end
    if (rst_ni) assert (next == f_in);   // the stages hold exactly the inputs in flight
  end
  always_comb begin
    if (rst_ni) begin
      assert (out_valid_o == probe_valid_q[STAGES-1]);
      assert (in_ready_o == (!probe_valid_q[STAGES-1] || out_ready_i));
    end
  end

`ifdef PROP_DATA
  (* keep *) logic [W-1:0]                probe_s1_peak, probe_s3_peak;
  (* keep *) logic [LEVELS*W-1:0]         probe_s1_bw, probe_s1_ai, probe_s3_level_cap;
  (* keep *) logic [NODES*NODE_W-1:0]     probe_mul_q;
  (* keep *) logic [MUL_STAGES*W-1:0]     probe_mul_peak_q;
  (* keep *) logic [LEVELS*PRODUCT_W-1:0] probe_s3_product;
  (* keep *) logic [LEVELS-1:0]           probe_s3_mem_bound;

  // Ghost registers: a copy of each stage's inputs, shifted in on in_ready_o as the project's
  // stages are, and tied to the scoreboard by one assertion per stage (a valid stage holds the
  // inputs of its sequence number). Every invariant below reads its stage's copy, a register, so
  // no multiplier of the invariants sits behind the FIFO's multiplexer: the solver meets that
  // multiplexer only in the ties, where it compares inputs, not products.
  logic [STAGES-1:0][IN_W-1:0] f_stage_in;
  always_ff @(posedge clk_i) begin
    if (in_ready_o) f_stage_in <= {f_stage_in[STAGES-2:0], peak_i, bw_i, ai_i};
  end
  for (genvar s = 0; s < STAGES; s++) begin : g_stage
    always_comb if (rst_ni && probe_valid_q[s]) assert (f_stage_in[s] == f_fifo[f_seq[s][DEPTH_W-1:0]]);
  end
  always_comb begin
    if (rst_ni && probe_valid_q[0]) assert ({probe_s1_peak, probe_s1_bw, probe_s1_ai} == f_stage_in[0]);
  end
`ifdef PROP_TREE
  // PROP_TREE: no invariant computes a product. Each input's tree (roofline_spec_tree_product,
  // every node of every level) and result (roofline_spec_hierarchy with the tree's products) are
  // worked out once, on the ports, and their copies travel beside the ghost inputs: a step only
  // moves them. What ties a stage's copies together are sums and comparisons: node (t, k) is the
  // sum of nodes (t-1, 2k) and (t-1, 2k+1), a leaf is its slice of ai (an AND at one bit) times bw,
  // and the result is roofline_spec_levels on the tree's products. The project's registers equal
  // their stage's copies, the outputs the last stage's result, and that result is the one kept
  // in flight for the input (f_results): the port property above.
  localparam int TREE_W = MUL_STAGES * CHUNKS * NODE_W;   // one level's tree, node (t, k) at (t * CHUNKS + k) * NODE_W
  localparam int MARK_W = OUT_W + LEVELS;                 // a result and its levels' verdicts
  logic [LEVELS*TREE_W-1:0] f_tree_in;
  for (genvar l = 0; l < LEVELS; l++) begin : g_tree_in
    logic [PRODUCT_W-1:0] unused_product;
    roofline_spec_tree_product #(.W(W), .MUL_STAGES(MUL_STAGES)) u_tree (
      .ai(ai_i[l*W +: W]), .bw(bw_i[l*W +: W]), .nodes(f_tree_in[l*TREE_W +: TREE_W]), .product(unused_product)
    );
  end
  logic [STAGES-1:0][LEVELS*TREE_W-1:0] f_stage_tree;
  logic [STAGES-1:0][MARK_W-1:0]        f_stage_mark;
  always_ff @(posedge clk_i) begin
    if (in_ready_o) begin
      f_stage_tree <= {f_stage_tree[STAGES-2:0], f_tree_in};
      f_stage_mark <= {f_stage_mark[STAGES-2:0], f_result_in, f_in_level_mem_bound};
    end
  end
  for (genvar s = 0; s < STAGES; s++) begin : g_copy
    logic [W-1:0]                peak;
    logic [LEVELS*W-1:0]         bw, ai;
    logic [LEVELS*PRODUCT_W-1:0] product;
    logic [OUT_W-1:0]            result, levels_result;
    logic [LEVELS-1:0]           mem_bound, levels_mem_bound, unused_binds;
    assign {peak, bw, ai} = f_stage_in[s];
    assign {result, mem_bound} = f_stage_mark[s];
    for (genvar l = 0; l < LEVELS; l++) begin : g_level
      localparam int TREE = l * TREE_W;
      logic [CHUNKS*CHUNK_W-1:0] ai_pad;
      assign ai_pad = (CHUNKS*CHUNK_W)'(ai[l*W +: W]);
      assign product[l*PRODUCT_W +: PRODUCT_W] = PRODUCT_W'(f_stage_tree[s][TREE + (MUL_STAGES - 1) * CHUNKS * NODE_W +: NODE_W]);
      for (genvar k = 0; k < CHUNKS; k++) begin : g_leaf
        always_comb begin
          if (rst_ni && probe_valid_q[s])
            assert (f_stage_tree[s][TREE + k*NODE_W +: NODE_W] == NODE_W'(ai_pad[k*CHUNK_W +: CHUNK_W]) * NODE_W'(bw[l*W +: W]));
        end
      end
      for (genvar t = 1; t < MUL_STAGES; t++) begin : g_sum
        for (genvar k = 0; k < (CHUNKS >> t); k++) begin : g_node
          localparam int AT  = TREE + (t * CHUNKS + k) * NODE_W;
          localparam int LOW = TREE + ((t - 1) * CHUNKS + 2 * k) * NODE_W;
          always_comb begin
            if (rst_ni && probe_valid_q[s])
              assert (f_stage_tree[s][AT +: NODE_W] == f_stage_tree[s][LOW +: NODE_W]
                                                      + (f_stage_tree[s][LOW + NODE_W +: NODE_W] << (CHUNK_W << (t - 1))));
          end
        end
      end
    end
    roofline_spec_levels #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) u_levels (
      .peak, .product, .level_mem_bound(levels_mem_bound), .binds(unused_binds), .cap(levels_result[OUT_W-1 -: W]),
      .level_cap(levels_result[IDX_W + 1 +: LEVELS*W]), .mem_bound(levels_result[IDX_W]), .binding(levels_result[0 +: IDX_W])
    );
    always_comb begin
      if (rst_ni && probe_valid_q[s]) begin
        assert (result == f_results[f_seq[s][DEPTH_W-1:0]]);
        assert ({result, mem_bound} == {levels_result, levels_mem_bound});
      end
    end
    // The project's registers of this stage against its copies.
    if (s >= 1 && s <= MUL_STAGES) begin : g_mul_stage
      localparam int T = s - 1;
      for (genvar l = 0; l < LEVELS; l++) begin : g_level
        for (genvar k = 0; k < (CHUNKS >> T); k++) begin : g_node
          always_comb begin
            if (rst_ni && probe_valid_q[s])
              assert (probe_mul_q[((T * LEVELS + l) * CHUNKS + k) * NODE_W +: NODE_W]
                      == f_stage_tree[s][l * TREE_W + (T * CHUNKS + k) * NODE_W +: NODE_W]);
          end
        end
      end
      always_comb if (rst_ni && probe_valid_q[s]) assert (probe_mul_peak_q[T*W +: W] == peak);
    end
    if (s == STAGES - 2) begin : g_round_stage
      always_comb begin
        if (rst_ni && probe_valid_q[s]) begin
          assert (probe_s3_peak == peak);
          assert (probe_s3_product == product);
          assert (probe_s3_mem_bound == mem_bound);
          assert (probe_s3_level_cap == result[IDX_W + 1 +: LEVELS*W]);
        end
      end
    end
    if (s == STAGES - 1) begin : g_out_stage
      always_comb if (rst_ni && probe_valid_q[s]) assert ({cap_o, level_cap_o, mem_bound_o, binding_o} == result);
    end
  end
`else
  // Multiplication stage t (register stage 1 + t): node (t, l, k) is ai bits
  // [k * 2^t * CHUNK_W +: 2^t * CHUNK_W] of level l times its bw, and the peak travels beside.
  for (genvar t = 0; t < MUL_STAGES; t++) begin : g_mul_stage
    logic [W-1:0]        peak;
    logic [LEVELS*W-1:0] bw, ai;
    assign {peak, bw, ai} = f_stage_in[1 + t];
    for (genvar l = 0; l < LEVELS; l++) begin : g_level
      for (genvar k = 0; k < (CHUNKS >> t); k++) begin : g_node
        localparam int SLICE_W = CHUNK_W << t;
        localparam int FIRST   = ((t * LEVELS + l) * CHUNKS + k) * NODE_W;
        logic [NODE_W-1:0] slice;
        assign slice = (NODE_W'(ai[l*W +: W]) >> (k * SLICE_W)) & ((NODE_W'(1) << SLICE_W) - 1'b1);
        always_comb begin
          if (rst_ni && probe_valid_q[1 + t]) assert (probe_mul_q[FIRST +: NODE_W] == slice * NODE_W'(bw[l*W +: W]));
        end
      end
    end
    always_comb if (rst_ni && probe_valid_q[1 + t]) assert (probe_mul_peak_q[t*W +: W] == peak);
  end
  // Stage 2 + MUL_STAGES: each level's product, verdict and cap, against the specification.
  logic [W-1:0]                f_s3_peak, f_s3_cap;
  logic [LEVELS*W-1:0]         f_s3_bw, f_s3_ai, f_s3_level_cap;
  logic [LEVELS*PRODUCT_W-1:0] f_s3_product;
  logic [LEVELS-1:0]           f_s3_mem_bound, f_s3_binds;
  logic                        f_s3_any;
  logic [IDX_W-1:0]            f_s3_binding;
  assign {f_s3_peak, f_s3_bw, f_s3_ai} = f_stage_in[STAGES-2];
  roofline_spec_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) u_s3_spec (
    .peak(f_s3_peak), .bw(f_s3_bw), .ai(f_s3_ai), .product(f_s3_product), .level_mem_bound(f_s3_mem_bound),
    .binds(f_s3_binds), .cap(f_s3_cap), .level_cap(f_s3_level_cap), .mem_bound(f_s3_any), .binding(f_s3_binding)
  );
  always_comb begin
    if (rst_ni && probe_valid_q[STAGES-2]) begin
      assert (probe_s3_peak == f_s3_peak);
      assert (probe_s3_product == f_s3_product);
      assert (probe_s3_mem_bound == f_s3_mem_bound);
      assert (probe_s3_level_cap == f_s3_level_cap);
    end
  end
`endif
`endif
`endif

  // ---------------------------------------------------------------- covers of the data
`ifdef PROP_DATA
`ifndef PROP_TREE
  logic out_fire;
  assign out_fire = rst_ni && out_valid_o && out_ready_i;
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      cover (out_fire && !mem_bound_o && binding_o == IDX_W'(LEVELS));                  // compute binds
      cover (out_fire && mem_bound_o && binding_o == '0);                               // level 0 binds
      cover (out_fire && mem_bound_o && binding_o == IDX_W'(LEVELS - 1));               // the last level binds
      cover (out_fire && f_level_mem_bound[0]
             && f_product[0 +: FRAC_BITS] == FRAC_BITS'(1) << (FRAC_BITS - 1));         // a rounding tie
      cover (out_fire && f_head[2*LEVELS*W +: W] != '0
             && f_product[0 +: PRODUCT_W] == PRODUCT_W'(f_head[2*LEVELS*W +: W]) << FRAC_BITS);  // the ridge (peak 0 would be vacuous)
    end
  end
  if (LEVELS > 1) begin : g_tie
    always_ff @(posedge clk_i) begin
      if (rst_ni) cover (out_fire && f_level_mem_bound[0] && f_level_mem_bound[1]
                         && f_product[0 +: PRODUCT_W] == f_product[PRODUCT_W +: PRODUCT_W]);  // a tie of memory-bound levels
    end
  end
`endif
`endif
endmodule
`default_nettype wire
