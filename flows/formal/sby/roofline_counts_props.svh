// Properties of roofline_counts for SymbiYosys (roofline_counts.sby), included at the end of the
// module when ROOFLINE_FORMAL is defined. Every start, peak, bandwidth and count pattern is free
// but for a reset in the first cycle.
//
// The harness follows each placement the module accepts (start_i while busy_o is low) and counts
// its clock edges. The control properties hold at any width, by k-induction:
//   - busy_o is high exactly while a placement runs; a start while busy is ignored: the operands
//     are held;
//   - each level takes one compare cycle and, when memory-bound, DIVIDEND_W divide cycles, so
//     done_o comes at most LEVELS * (COUNT_BITS + INT_BITS + FRAC_BITS + 2) + 2 cycles after the
//     start was sampled (counting both), and never without a placement running;
//   - done_o is a one-cycle pulse, and the outputs hold between pulses.
// With ROOFLINE_FORMAL_DATA, every result also equals the contract's, from a reference written
// from the spec (all levels at once, not level by level): checked by bounded model checking from
// reset at small widths (see the .sby).

  localparam int F_LEVEL_MAX = DIVIDEND_W + 1;              // compare + divide cycles of one level
  localparam int F_LATENCY   = LEVELS * F_LEVEL_MAX + 2;    // cycles, the start's and done's included
  localparam int F_ELAPSED_W = $clog2(F_LATENCY + 1);

  logic                   f_past_valid = 1'b0;
  logic                   f_running;
  logic [F_ELAPSED_W-1:0] f_elapsed;   // clock edges since its start was sampled
  logic [W-1:0]           f_peak;
  logic [LEVELS*W-1:0]    f_bw;
  logic [C-1:0]           f_ops;
  logic [LEVELS*C-1:0]    f_bytes;
  logic                   f_accept;

  assign f_accept = rst_ni && start_i && !busy_o;

  always_ff @(posedge clk_i) f_past_valid <= 1'b1;
  always_comb if (!f_past_valid) assume (!rst_ni);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_running <= 1'b0;
      f_elapsed <= '0;
    end else if (f_accept) begin
      f_running <= 1'b1;
      f_elapsed <= '0;
    end else if (f_running) begin
      f_elapsed <= f_elapsed + 1'b1;
      if (state_q == Finish) f_running <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (f_accept) begin
      f_peak  <= peak_i;
      f_bw    <= bw_i;
      f_ops   <= ops_i;
      f_bytes <= bytes_i;
    end
  end

  // The most cycles the levels before this one may have used: F_LEVEL_MAX each. A table, not a
  // product: the control tasks cut every multiplier.
  logic [F_ELAPSED_W-1:0] f_level_start_max;
  always_comb begin
    f_level_start_max = '0;
    for (int l = 1; l <= LEVELS; l++) if (level_q == IDX_W'(l)) f_level_start_max = F_ELAPSED_W'(l * F_LEVEL_MAX);
  end

  always_comb begin
    if (rst_ni) begin
      assert (busy_o == (state_q != Idle));
      assert (busy_o == f_running);
      if (busy_o) begin
        assert ({peak_q, bw_q, ops_q, bytes_q} == {f_peak, f_bw, f_ops, f_bytes});  // held while busy
        assert (f_elapsed >= F_ELAPSED_W'(level_q));
      end
      if (state_q == Compare || state_q == Divide) assert (level_q < IDX_W'(LEVELS));
      if (state_q == Compare) assert (f_elapsed <= f_level_start_max);
      if (state_q == Divide) begin
        assert (steps_left_q >= LAST_STEP && steps_left_q <= STEP_W'(DIVIDEND_W));
        assert (f_elapsed <= f_level_start_max + F_ELAPSED_W'(1 + DIVIDEND_W) - F_ELAPSED_W'(steps_left_q));
      end
      if (state_q == Finish) assert (f_elapsed <= F_ELAPSED_W'(LEVELS * F_LEVEL_MAX));
      if (done_o) assert (!busy_o);
      assert (best_q <= COMPUTE_BINDS);
    end
  end

  always_ff @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni) begin
      assert (done_o == ($past(state_q) == Finish));  // done only when a placement ends
      if (done_o) begin
        assert (!$past(done_o));                                         // a one-cycle pulse
        assert (int'($past(f_elapsed)) + 2 <= F_LATENCY);  // the latency bound, start and done cycles counted
      end else begin
        assert ({cap_o, mem_bound_o, binding_o} == $past({cap_o, mem_bound_o, binding_o}));  // results hold
      end
    end
  end

`ifdef ROOFLINE_FORMAL_DATA
  // The contract, for all levels at once: a level is memory-bound when bytes > 0 and
  // ops * bw < peak * bytes; its cap is then round(ops * bw / bytes) (ties up), else peak. The
  // binding level is the memory-bound one with the smallest ops * bw_l / bytes_l, the lowest
  // index on a tie; compared as ops * bw_l * bytes_m < ops * bw_m * bytes_l, so that with ops == 0
  // every memory-bound level ties.
  localparam int F_WIDE = 2 * C + W;
  logic [LEVELS-1:0]   f_mem_bound;
  logic [LEVELS*W-1:0] f_level_cap;
  logic [IDX_W-1:0]    f_binding;
  always_comb begin
    f_binding = COMPUTE_BINDS;
    for (int l = 0; l < LEVELS; l++) begin
      f_mem_bound[l] = f_bytes[l*C +: C] != '0
                     && PRODUCT_W'(f_ops) * PRODUCT_W'(f_bw[l*W +: W]) < PRODUCT_W'(f_peak) * PRODUCT_W'(f_bytes[l*C +: C]);
      f_level_cap[l*W +: W] = f_mem_bound[l]
          ? W'(((DIVIDEND_W+1)'(PRODUCT_W'(f_ops) * PRODUCT_W'(f_bw[l*W +: W])) * 2 / (DIVIDEND_W+1)'(f_bytes[l*C +: C])
                + 1) / 2)
          : f_peak;
    end
    for (int l = LEVELS - 1; l >= 0; l--) begin
      logic lowest;
      lowest = f_mem_bound[l];
      for (int m = 0; m < LEVELS; m++) begin
        if (m != l && f_mem_bound[m]) begin
          if (F_WIDE'(f_ops) * F_WIDE'(f_bw[m*W +: W]) * F_WIDE'(f_bytes[l*C +: C])
              < F_WIDE'(f_ops) * F_WIDE'(f_bw[l*W +: W]) * F_WIDE'(f_bytes[m*C +: C])) lowest = 1'b0;
          if (m < l && F_WIDE'(f_ops) * F_WIDE'(f_bw[m*W +: W]) * F_WIDE'(f_bytes[l*C +: C])
                    == F_WIDE'(f_ops) * F_WIDE'(f_bw[l*W +: W]) * F_WIDE'(f_bytes[m*C +: C])) lowest = 1'b0;
        end
      end
      if (lowest) f_binding = IDX_W'(l);
    end
  end
  always_comb begin
    if (rst_ni && done_o) begin
      assert (level_cap_o == f_level_cap);
      assert (binding_o == f_binding);
      assert (mem_bound_o == (f_binding != COMPUTE_BINDS));
      assert (cap_o == (f_binding == COMPUTE_BINDS ? f_peak : f_level_cap[f_binding*W +: W]));
    end
  end
`endif

  // The covers: the worst-case latency, each roof binding, a level with no traffic, the exact ridge, back-to-back
  // placements and a start ignored while busy.
  always_ff @(posedge clk_i) begin
    if (f_past_valid && rst_ni) begin
      cover (done_o && int'($past(f_elapsed)) + 2 == F_LATENCY);             // the latency bound, reached
      cover (done_o && binding_o == COMPUTE_BINDS);                           // compute binds
      cover (done_o && binding_o == '0);                                      // level 0 binds
      cover (done_o && binding_o == LAST_LEVEL);                              // the last level binds
      cover (done_o && f_bytes[C-1:0] == '0 && f_ops != '0);                 // a level with no traffic
      cover (done_o && f_ops != '0 && PRODUCT_W'(f_ops) * PRODUCT_W'(f_bw[W-1:0])
                                   == PRODUCT_W'(f_peak) * PRODUCT_W'(f_bytes[C-1:0]));  // the exact ridge
      cover ($past(done_o) && $past(start_i) && busy_o);                      // back to back
      cover ($past(busy_o && start_i) && busy_o);                             // a start ignored while busy
    end
  end
