`default_nettype none
// Properties of roofline_intensity, attached by its ports: they check any implementation of the
// contract (spec section 3). Every start, ops and bytes pattern is free but for a reset in the
// first cycle.
//
// A harness follows each division the design accepts (start_i while busy_o is low) and counts
// its cycles. At the ports, always:
//   - busy_o and done_o are low in the first cycle after a reset;
//   - busy_o is high while a division runs until its done_o, and low while none runs: a start is
//     sampled only when nothing runs;
//   - every done_o belongs to one accepted start, and comes within the contract's latency bound,
//     COUNT_BITS + FRAC_BITS + 4 cycles (from the cycle start_i is sampled in to the done_o
//     cycle): done_o is a pulse, never twice for one start;
//   - ai_o, sat_o and div0_o hold between done_o pulses.
// PROP_DATA: at done_o, the result equals the spec's: ai = round(ops * 2^F / bytes), ties up,
//   saturating to all ones with sat_o; bytes == 0 gives all ones, sat_o and div0_o.
//
// ROOFLINE_PROBES (make prove defines it when the design has the signals; see sby.py): the
// project's divider registers, connected after flattening, and what the project documents
// beyond the contract (the exact latency, COUNT_BITS + FRAC_BITS + 2 cycles, or 1 when
// bytes == 0), with the invariants that let k-induction close: the step counter, the operands
// held, the divider's remainder below its divisor and, with PROP_DATA, the partial quotient.
module props_intensity #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int COUNT_BITS = 64
) (
  input logic                  clk_i,
  input logic                  rst_ni,
  input logic                  start_i,
  input logic [COUNT_BITS-1:0] ops_i,
  input logic [COUNT_BITS-1:0] bytes_i
);
  localparam int W           = INT_BITS + FRAC_BITS;
  localparam int C           = COUNT_BITS;
  localparam int MAX_LATENCY = C + FRAC_BITS + 4;
  localparam int ELAPSED_W   = $clog2(MAX_LATENCY + 2);

  logic         busy_o, done_o, sat_o, div0_o;
  logic [W-1:0] ai_o;
  roofline_intensity #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .COUNT_BITS(COUNT_BITS)) dut (
    .clk_i, .rst_ni, .start_i, .ops_i, .bytes_i, .busy_o, .done_o, .ai_o, .sat_o, .div0_o
  );

  logic past_valid = 1'b0;
  logic past_reset, past_rst_n, past_running;
  logic [W+2:0] past_results;
  always_ff @(posedge clk_i) begin
    past_valid   <= 1'b1;
    past_reset   <= !rst_ni;
    past_rst_n  <= rst_ni;
    past_running <= running;
    past_results <= {ai_o, sat_o, div0_o};
  end
  always_comb if (!past_valid) assume (!rst_ni);

  // The division in flight: accepted, its done_o not yet seen; its operands; its age in cycles
  // (1 in the cycle after start_i was sampled, so it equals the latency in the done_o cycle).
  logic                 accept, running;
  logic [ELAPSED_W-1:0] elapsed;
  logic [C-1:0]         f_ops, f_bytes;
  assign accept = rst_ni && start_i && !busy_o;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running <= 1'b0;
      elapsed <= '0;
    end else if (accept) begin
      running <= 1'b1;
      elapsed <= ELAPSED_W'(1);
    end else if (done_o) begin
      running <= 1'b0;
    end else if (running && elapsed != '1) begin
      elapsed <= elapsed + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (accept) begin
      f_ops   <= ops_i;
      f_bytes <= bytes_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (past_valid && past_reset) assert (!busy_o && !done_o);
      if (done_o) assert (running);                              // a done_o for each start, once
      if (running && !done_o) assert (busy_o);                   // no start sampled while one runs
      if (!running) assert (!busy_o);                            // busy only while one runs
      if (running) assert (elapsed <= ELAPSED_W'(MAX_LATENCY));  // the latency bound
      if (running && !done_o) assert (elapsed < ELAPSED_W'(MAX_LATENCY));
      if (past_valid && past_rst_n && !past_reset && !done_o) assert ({ai_o, sat_o, div0_o} == past_results);
    end
  end

  // The spec's result of the division in flight.
  localparam int DIVIDEND_W = C + FRAC_BITS + 1;
  logic [DIVIDEND_W-1:0] f_twice_quotient;
  logic [DIVIDEND_W:0]   f_rounded;
  logic                  f_div0, f_sat;
  logic [W-1:0]          f_ai;
  assign f_div0 = f_bytes == '0;
`ifdef PROP_DATA
  assign f_twice_quotient = (DIVIDEND_W'(f_ops) << (FRAC_BITS + 1)) / DIVIDEND_W'(f_bytes);
`else
  assign f_twice_quotient = '0;
`endif
  assign f_rounded = ((DIVIDEND_W+1)'(f_twice_quotient) + 1'b1) >> 1;
  assign f_sat     = f_div0 || f_rounded > (DIVIDEND_W+1)'({W{1'b1}});
  assign f_ai      = f_sat ? {W{1'b1}} : W'(f_rounded);
`ifdef PROP_DATA
  always_comb begin
    if (rst_ni && done_o) begin
      assert (div0_o == f_div0);
      assert (sat_o == f_sat);
      assert (ai_o == f_ai);
    end
  end
`endif

`ifdef ROOFLINE_PROBES
  localparam int STEPS  = C + FRAC_BITS + 1;
  localparam int STEP_W = $clog2(STEPS + 1);
  localparam int QUOTIENT_W = W + 1;
  (* keep *) logic [STEP_W-1:0]     probe_steps_left_q;
  (* keep *) logic [C-1:0]          probe_divisor_q, probe_remainder_q;
  always_comb begin
    if (rst_ni) begin
      // The project's latency: STEPS + 1 cycles, or 1 when bytes == 0.
      if (running) assert (done_o == (elapsed == ELAPSED_W'(f_div0 ? 1 : STEPS + 1)));
      if (running && !f_div0 && !done_o) begin
        assert (probe_steps_left_q == STEP_W'(STEPS + 1 - elapsed));
        assert (probe_divisor_q == f_bytes);
        assert (probe_remainder_q < probe_divisor_q);   // the divider step's precondition
      end
      if (busy_o) assert (running && !f_div0 && !done_o);
    end
  end
`ifdef PROP_DATA
  // The partial quotient: after k steps, the k dividend bits brought down (the top k of
  // ops * 2^(F+1)) are quotient * bytes + remainder, with the quotient's bits above QUOTIENT_W
  // gathered in overflow_q.
  (* keep *) logic [C-1:0]          probe_dividend_q;
  (* keep *) logic [QUOTIENT_W-1:0] probe_quotient_q;
  (* keep *) logic                  probe_overflow_q;
  localparam int WIDE_W = QUOTIENT_W + C + 1;   // quotient * bytes + remainder, never truncated
  logic [STEP_W-1:0] f_done_steps;
  logic [WIDE_W-1:0] f_brought_down;
  assign f_done_steps   = STEP_W'(elapsed - 1'b1);
  assign f_brought_down = WIDE_W'((DIVIDEND_W'(f_ops) << (FRAC_BITS + 1)) >> (STEPS - f_done_steps));
  always_comb begin
    if (rst_ni && running && !f_div0 && !done_o) begin
      assert (probe_dividend_q == f_ops << f_done_steps);
      if (probe_overflow_q) assert (f_brought_down >= (WIDE_W'(f_bytes) << QUOTIENT_W));
      else assert (f_brought_down == WIDE_W'(probe_quotient_q) * WIDE_W'(f_bytes) + WIDE_W'(probe_remainder_q));
    end
  end
`endif
`endif

  // Covers: each must be reached, or a property above could hold vacuously.
  always_ff @(posedge clk_i) begin
    if (past_valid && rst_ni) begin
      cover (done_o && !div0_o && !sat_o);                       // a result
      cover (done_o && sat_o && !div0_o);                        // saturation
      cover (done_o && div0_o);                                  // division by zero
      cover (done_o && !sat_o && ai_o == '1);                    // an all-ones result that is not saturated
`ifdef PROP_DATA
      cover (done_o && !sat_o && f_twice_quotient[0]
             && f_twice_quotient * f_bytes == DIVIDEND_W'(f_ops) << (FRAC_BITS + 1));  // a rounding tie, exactly
      cover (done_o && sat_o && !div0_o
             && f_twice_quotient == DIVIDEND_W'({(W+1){1'b1}}));  // saturated by rounding alone: all ones rounds to 2^W
`endif
      cover (done_o && start_i && !busy_o);                      // back to back: a start in the done cycle
      cover (busy_o && start_i);                                 // a start ignored while busy
    end
    if (past_valid) cover (!rst_ni && past_rst_n && past_running);   // a reset mid-division
  end
endmodule
`default_nettype wire
