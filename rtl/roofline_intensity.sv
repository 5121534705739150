`default_nettype none
// Arithmetic intensity from counts: ai_o = round(ops * 2^FRAC_BITS / bytes), ties up,
// saturating to all ones. A restoring divider, one quotient bit per clock.
//
// It divides ops * 2^(FRAC_BITS+1) by bytes, one more fractional bit than the result has,
// so round-to-nearest-ties-up is (quotient + 1) >> 1. Only the low W+1 quotient bits are
// kept; a 1 shifted out above them means the result saturates.
//
// Handshake: start_i is sampled on a rising edge while busy_o is low. done_o pulses high
// for one cycle with ai_o, sat_o and div0_o valid; they hold until the next done_o.
// Latency, from the cycle in which start_i is sampled to the cycle in which done_o is high:
//   COUNT_BITS + FRAC_BITS + 2 cycles, or 1 cycle when bytes == 0.
// busy_o is low in the done_o cycle, so a new start_i can be sampled back to back.
module roofline_intensity #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int COUNT_BITS = 64
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic                          start_i,
  input  logic [COUNT_BITS-1:0]         ops_i,    // FLOP
  input  logic [COUNT_BITS-1:0]         bytes_i,  // B
  output logic                          busy_o,
  output logic                          done_o,
  output logic [INT_BITS+FRAC_BITS-1:0] ai_o,     // FLOP/B
  output logic                          sat_o,    // saturated, or bytes == 0
  output logic                          div0_o    // bytes == 0
);
  localparam int W          = INT_BITS + FRAC_BITS;
  localparam int STEPS      = COUNT_BITS + FRAC_BITS + 1;  // quotient bits produced
  localparam int STEP_W     = $clog2(STEPS + 1);
  localparam int QUOTIENT_W = W + 1;                       // result bits + the rounding bit
  localparam logic [STEP_W-1:0] LAST_STEP = STEP_W'(1);

  roofline_param_check #(
    .INT_BITS  (INT_BITS),
    .FRAC_BITS (FRAC_BITS),
    .COUNT_BITS(COUNT_BITS)
  ) u_param_check ();

  logic [COUNT_BITS-1:0] dividend_q, dividend_d;     // dividend bits still to bring down, MSB first
  logic [COUNT_BITS-1:0] divisor_q, divisor_d;
  logic [COUNT_BITS-1:0] remainder_q, remainder_d;
  logic [QUOTIENT_W-1:0] quotient_q, quotient_d;
  logic                  overflow_q, overflow_d;     // a quotient bit above QUOTIENT_W was 1
  logic [STEP_W-1:0]     steps_left_q, steps_left_d;
  logic                  busy_d, done_d, sat_d, div0_d;
  logic [W-1:0]          ai_d;

  // One restoring step: bring down the next dividend bit, subtract when the divisor fits.
  logic [COUNT_BITS-1:0] step_remainder;
  logic [QUOTIENT_W-1:0] step_quotient;
  logic                  quotient_carry;
  logic                  step_overflow;

  roofline_div_step #(
    .WIDTH     (COUNT_BITS),
    .QUOTIENT_W(QUOTIENT_W)
  ) u_step (
    .remainder_i(remainder_q),
    .next_bit_i (dividend_q[COUNT_BITS-1]),
    .divisor_i  (divisor_q),
    .quotient_i (quotient_q),
    .remainder_o(step_remainder),
    .quotient_o (step_quotient),
    .carry_out_o(quotient_carry)
  );
  assign step_overflow = overflow_q | quotient_carry;

  // The result once the last quotient bit is in.
  logic                  saturates;
  logic [QUOTIENT_W-1:0] quotient_plus_half;
  logic                  unused_half_lsb;
  logic [W-1:0]          ai_result;

  assign saturates          = step_overflow | (&step_quotient);
  assign quotient_plus_half = step_quotient + QUOTIENT_W'(1);
  assign unused_half_lsb    = quotient_plus_half[0];
  assign ai_result          = saturates ? '1 : quotient_plus_half[QUOTIENT_W-1:1];

  always_comb begin
    dividend_d   = dividend_q;
    divisor_d    = divisor_q;
    remainder_d  = remainder_q;
    quotient_d   = quotient_q;
    overflow_d   = overflow_q;
    steps_left_d = steps_left_q;
    busy_d       = busy_o;
    done_d       = 1'b0;
    ai_d         = ai_o;
    sat_d        = sat_o;
    div0_d       = div0_o;
    if (!busy_o) begin
      if (start_i) begin
        if (bytes_i == '0) begin
          done_d = 1'b1;
          ai_d   = '1;
          sat_d  = 1'b1;
          div0_d = 1'b1;
        end else begin
          busy_d       = 1'b1;
          dividend_d   = ops_i;
          divisor_d    = bytes_i;
          remainder_d  = '0;
          quotient_d   = '0;
          overflow_d   = 1'b0;
          steps_left_d = STEP_W'(STEPS);
        end
      end
    end else begin
      dividend_d   = dividend_q << 1;
      remainder_d  = step_remainder;
      quotient_d   = step_quotient;
      overflow_d   = step_overflow;
      steps_left_d = steps_left_q - STEP_W'(1);
      if (steps_left_q == LAST_STEP) begin
        busy_d = 1'b0;
        done_d = 1'b1;
        ai_d   = ai_result;
        sat_d  = saturates;
        div0_d = 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_o       <= 1'b0;
      done_o       <= 1'b0;
      ai_o         <= '0;
      sat_o        <= 1'b0;
      div0_o       <= 1'b0;
      dividend_q   <= '0;
      divisor_q    <= '0;
      remainder_q  <= '0;
      quotient_q   <= '0;
      overflow_q   <= 1'b0;
      steps_left_q <= '0;
    end else begin
      busy_o       <= busy_d;
      done_o       <= done_d;
      ai_o         <= ai_d;
      sat_o        <= sat_d;
      div0_o       <= div0_d;
      dividend_q   <= dividend_d;
      divisor_q    <= divisor_d;
      remainder_q  <= remainder_d;
      quotient_q   <= quotient_d;
      overflow_q   <= overflow_d;
      steps_left_q <= steps_left_d;
    end
  end
endmodule
`default_nettype wire
