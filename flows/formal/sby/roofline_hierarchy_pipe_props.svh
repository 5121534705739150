// Properties of roofline_hierarchy_pipe for SymbiYosys (roofline_hierarchy_pipe.sby), included at
// the end of the module when ROOFLINE_FORMAL is defined. Every input, valid and ready pattern is
// free: nothing is assumed but a reset in the first cycle.
//
// A shadow of the pipeline, kept here, holds for each stage the inputs of the transaction in it
// and its sequence number (the count of inputs accepted before it). It moves on the module's own
// `advance`. The assertions say:
//   - results leave in order, none lost and none repeated: the result at the output carries the
//     sequence number of the results delivered so far;
//   - the module holds exactly the transactions accepted and not yet delivered;
//   - each stage's registers are the function of that transaction's inputs the stage computes,
//     and the outputs equal roofline_hierarchy's on those inputs;
//   - a stalled result stays, unchanged.
// The per-stage equalities are what lets induction close: each stage follows from the one before.
// ROOFLINE_FORMAL_CONTROL_ONLY keeps the first, second and last (no data path): with the
// multipliers cut, those close at any width.

  localparam int F_IN_W  = W + 2 * LEVELS * W;   // {peak, bw, ai}
  localparam int F_SEQ_W = 8;

  logic               f_past_valid = 1'b0;
  logic [F_SEQ_W-1:0] f_accepted, f_delivered;   // counts, modulo 2^F_SEQ_W
  logic [STAGES*F_IN_W-1:0]  f_in_q;
  logic [STAGES*F_SEQ_W-1:0] f_seq_q;

  always_ff @(posedge clk_i) f_past_valid <= 1'b1;
  always_comb if (!f_past_valid) assume (!rst_ni);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_accepted  <= '0;
      f_delivered <= '0;
    end else begin
      if (in_valid_i && in_ready_o) f_accepted <= f_accepted + 1'b1;
      if (out_valid_o && out_ready_i) f_delivered <= f_delivered + 1'b1;
    end
  end

  always_ff @(posedge clk_i) begin
    if (advance) begin
      f_in_q  <= {f_in_q[0 +: (STAGES-1)*F_IN_W], peak_i, bw_i, ai_i};
      f_seq_q <= {f_seq_q[0 +: (STAGES-1)*F_SEQ_W], f_accepted};
    end
  end

  // Order and count: the valid stages hold consecutive sequence numbers, the oldest at the output.
  always_comb begin
    logic [F_SEQ_W-1:0] f_next;
    f_next = f_delivered;
    for (int s = STAGES - 1; s >= 0; s--) begin
      if (rst_ni && valid_q[s]) begin
        assert (f_seq_q[s*F_SEQ_W +: F_SEQ_W] == f_next);
        f_next = f_next + 1'b1;
      end
    end
    if (rst_ni) assert (f_next == f_accepted);
  end

`ifndef ROOFLINE_FORMAL_CONTROL_ONLY
  // The inputs of the transaction in stage s (0: the input registers, STAGES-1: the outputs).
  logic [STAGES-1:0][W-1:0]                         f_peak;
  logic [STAGES-1:0][LEVELS-1:0][W-1:0]             f_bw, f_ai;
  logic [STAGES-1:0][LEVELS-1:0][PRODUCT_W-1:0]     f_product;
  for (genvar s = 0; s < STAGES; s++) begin : gen_f_stage
    assign f_peak[s] = f_in_q[s*F_IN_W + 2*LEVELS*W +: W];
    for (genvar l = 0; l < LEVELS; l++) begin : gen_f_level
      assign f_bw[s][l]      = f_in_q[s*F_IN_W + LEVELS*W + l*W +: W];
      assign f_ai[s][l]      = f_in_q[s*F_IN_W + l*W +: W];
      assign f_product[s][l] = PRODUCT_W'(f_ai[s][l]) * PRODUCT_W'(f_bw[s][l]);
    end
  end

  // Each stage's registers, from its transaction's inputs.
  always_comb begin
    if (rst_ni && valid_q[0]) assert ({s1_peak, s1_bw, s1_ai} == f_in_q[0 +: F_IN_W]);
    if (rst_ni && valid_q[MUL_STAGES]) begin
      assert (s2_peak == f_peak[MUL_STAGES]);
      for (int l = 0; l < LEVELS; l++) assert (s2_product[l*PRODUCT_W +: PRODUCT_W] == f_product[MUL_STAGES][l]);
    end
    if (rst_ni && valid_q[MUL_STAGES+1]) begin
      assert (s3_peak == f_peak[MUL_STAGES + 1]);
      for (int l = 0; l < LEVELS; l++) assert (s3_product[l*PRODUCT_W +: PRODUCT_W] == f_product[MUL_STAGES + 1][l]);
    end
  end

  // The multiplication stages: node (t, l, k) of the sum tree, in stage 1 + t, is its slice of
  // ai times bw, and the peak travels beside it.
  always_comb begin
    for (int t = 0; t < MUL_STAGES; t++) begin
      if (rst_ni && valid_q[1 + t]) begin
        assert (mul_peak_q[t*W +: W] == f_peak[1 + t]);
        for (int l = 0; l < LEVELS; l++) begin
          for (int k = 0; k < (CHUNKS >> t); k++) begin
            assert (mul_q[node(t, l, k) +: NODE_W]
                    == ((NODE_W'(f_ai[1 + t][l]) >> (k * (CHUNK_W << t))) & ((NODE_W'(1) << (CHUNK_W << t)) - 1'b1))
                       * NODE_W'(f_bw[1 + t][l]));
          end
        end
      end
    end
  end

  // Stage 3's verdicts and caps, and the outputs, against the combinational modules.
  logic [LEVELS-1:0]   f_s3_mem_bound;
  logic [LEVELS*W-1:0] f_s3_level_cap;
  for (genvar l = 0; l < LEVELS; l++) begin : gen_f_round_cap
    roofline_round_cap #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) f_round_cap (
      .peak_i(f_peak[MUL_STAGES + 1]), .product_i(f_product[MUL_STAGES + 1][l]),
      .mem_bound_o(f_s3_mem_bound[l]), .cap_o(f_s3_level_cap[l*W +: W])
    );
  end

  logic [W-1:0]        f_cap;
  logic [LEVELS*W-1:0] f_level_cap;
  logic                f_mem_bound;
  logic [IDX_W-1:0]    f_binding;
  roofline_hierarchy #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS)) f_reference (
    .peak_i(f_in_q[(STAGES-1)*F_IN_W + 2*LEVELS*W +: W]), .bw_i(f_in_q[(STAGES-1)*F_IN_W + LEVELS*W +: LEVELS*W]),
    .ai_i(f_in_q[(STAGES-1)*F_IN_W +: LEVELS*W]),
    .cap_o(f_cap), .level_cap_o(f_level_cap), .mem_bound_o(f_mem_bound), .binding_o(f_binding)
  );

  always_comb begin
    if (rst_ni && valid_q[MUL_STAGES+1]) assert (s3_mem_bound == f_s3_mem_bound && s3_level_cap == f_s3_level_cap);
    if (rst_ni && out_valid_o) begin
      assert (cap_o == f_cap && level_cap_o == f_level_cap && mem_bound_o == f_mem_bound && binding_o == f_binding);
    end
  end

`endif

  // A result the consumer does not take stays, unchanged.
  always_ff @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni && $past(out_valid_o && !out_ready_i)) begin
      assert (out_valid_o);
      assert ({cap_o, level_cap_o, mem_bound_o, binding_o} == $past({cap_o, level_cap_o, mem_bound_o, binding_o}));
    end
  end

  // Covers: each must be reached, or the properties above could hold vacuously.
  always_ff @(posedge clk_i) begin
    if (f_past_valid && rst_ni) begin
      cover (&valid_q && !out_ready_i && in_valid_i);                       // a stall with a full pipeline
      cover ($past(out_valid_o && out_ready_i) && out_valid_o && out_ready_i);  // back-to-back results
      cover (out_valid_o && out_ready_i && !mem_bound_o && binding_o == IDX_W'(LEVELS));  // compute binds
      cover (out_valid_o && out_ready_i && mem_bound_o && binding_o == '0);               // level 0 binds
      cover (out_valid_o && out_ready_i && mem_bound_o && binding_o == IDX_W'(LEVELS - 1)); // the last level binds
      cover (out_valid_o && f_delivered == F_SEQ_W'(STAGES + 1));           // more results than stages
`ifndef ROOFLINE_FORMAL_CONTROL_ONLY
      cover (out_valid_o && f_product[STAGES - 1][0] == PRODUCT_W'(f_peak[STAGES - 1]) << FRAC_BITS);  // the exact ridge
`endif
    end
  end
