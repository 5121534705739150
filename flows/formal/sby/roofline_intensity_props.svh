// Properties of roofline_intensity for SymbiYosys (roofline_intensity.sby), included at the end of
// the module when ROOFLINE_FORMAL is defined. Every start, ops and bytes pattern is free but for a
// reset in the first cycle.
//
// The harness follows each division the module accepts (start_i while busy_o is low, bytes != 0)
// and counts its cycles. The control properties hold at any width, by k-induction:
//   - busy_o is high exactly while a division runs, and its step counter agrees with the harness;
//   - done_o comes exactly COUNT_BITS + FRAC_BITS + 2 cycles after the start was sampled (counting
//     both), or one cycle after a start with bytes == 0, and never otherwise;
//   - done_o is a one-cycle pulse: high twice in a row only when a zero-bytes start was sampled in
//     between; a start while busy is ignored: the operands are held.
// With ROOFLINE_FORMAL_DATA, every result also equals round(ops * 2^F / bytes), ties up,
// saturating: checked by bounded model checking from reset at small widths (see the .sby).

  localparam int F_LATENCY = COUNT_BITS + FRAC_BITS + 2;  // cycles, the start's and done's included

  logic                  f_past_valid = 1'b0;
  logic                  f_running;                    // a division accepted and not yet done
  logic [STEP_W:0]       f_elapsed;                    // clock edges since its start was sampled
  logic [COUNT_BITS-1:0] f_ops, f_bytes;               // its operands
  logic                  f_accept, f_accept_div0;

  assign f_accept      = rst_ni && start_i && !busy_o && bytes_i != '0;
  assign f_accept_div0 = rst_ni && start_i && !busy_o && bytes_i == '0;

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
      if (f_elapsed + 1'b1 == (STEP_W+1)'(STEPS)) f_running <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (f_accept || f_accept_div0) begin
      f_ops   <= ops_i;
      f_bytes <= bytes_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      assert (busy_o == f_running);
      if (busy_o) begin
        assert (f_elapsed < (STEP_W+1)'(STEPS));
        assert ({1'b0, steps_left_q} == (STEP_W+1)'(STEPS) - f_elapsed);  // the step counter agrees
        assert (divisor_q == f_bytes && divisor_q != '0);                 // operands held while busy
      end
      if (done_o) assert (!busy_o);
    end
  end

  always_ff @(posedge clk_i) begin
    if (f_past_valid && $past(rst_ni) && rst_ni) begin
      // done_o exactly when a division ends or a zero-bytes start was sampled.
      assert (done_o == ($past(f_running && f_elapsed + 1'b1 == (STEP_W+1)'(STEPS)) || $past(f_accept_div0)));
      if ($past(f_accept_div0)) assert (done_o && div0_o && sat_o && ai_o == '1);
      if (done_o && $past(done_o)) assert ($past(f_accept_div0));  // a pulse, or two operations
      if (done_o && !div0_o) assert ($past(f_elapsed) == (STEP_W+1)'(F_LATENCY - 2));
      if (!done_o) assert ({ai_o, sat_o, div0_o} == $past({ai_o, sat_o, div0_o}));  // results hold
    end
  end

`ifdef ROOFLINE_FORMAL_DATA
  // The result, against a reference division of the operands the harness kept.
  localparam int F_DIVIDEND_W = COUNT_BITS + FRAC_BITS + 1;
  logic [F_DIVIDEND_W-1:0] f_quotient;
  logic [F_DIVIDEND_W:0]   f_rounded;
  assign f_quotient = (F_DIVIDEND_W'(f_ops) << (FRAC_BITS + 1)) / F_DIVIDEND_W'(f_bytes);
  assign f_rounded  = ((F_DIVIDEND_W+1)'(f_quotient) + 1'b1) >> 1;
  always_comb begin
    if (rst_ni && done_o && !div0_o) begin
      assert (sat_o == (f_rounded > (F_DIVIDEND_W+1)'({W{1'b1}})));
      assert (ai_o == (sat_o ? {W{1'b1}} : W'(f_rounded)));
    end
  end
`endif

  always_ff @(posedge clk_i) begin
    if (f_past_valid && rst_ni) begin
      cover (done_o && !div0_o && !sat_o);                       // a result
      cover (done_o && sat_o && !div0_o);                        // saturation
      cover (done_o && div0_o);                                  // division by zero
      cover ($past(done_o) && $past(start_i) && busy_o);         // back to back: started in the done cycle
      cover ($past(busy_o && start_i) && busy_o);                // a start ignored while busy
    end
  end
