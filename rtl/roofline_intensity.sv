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

  logic [COUNT_BITS-1:0] dividend_q;   // dividend bits still to bring down, MSB first
  logic [COUNT_BITS-1:0] divisor_q;
  logic [COUNT_BITS-1:0] remainder_q;
  logic [QUOTIENT_W-1:0] quotient_q;
  logic                  overflow_q;   // a quotient bit above QUOTIENT_W was 1
  logic [STEP_W-1:0]     steps_left_q;

  // One restoring step: bring down the next dividend bit, subtract when the divisor fits.
  logic [COUNT_BITS-1:0] remainder_d;
  logic [QUOTIENT_W-1:0] quotient_d;
  logic                  quotient_carry;
  logic                  overflow_d;

  roofline_div_step #(
    .WIDTH     (COUNT_BITS),
    .QUOTIENT_W(QUOTIENT_W)
  ) u_step (
    .remainder_i(remainder_q),
    .next_bit_i (dividend_q[COUNT_BITS-1]),
    .divisor_i  (divisor_q),
    .quotient_i (quotient_q),
    .remainder_o(remainder_d),
    .quotient_o (quotient_d),
    .carry_out_o(quotient_carry)
  );
  assign overflow_d = overflow_q | quotient_carry;

  // The result once the last quotient bit is in.
  logic                  saturates;
  logic [QUOTIENT_W-1:0] quotient_plus_half;
  logic                  unused_half_lsb;
  logic [W-1:0]          ai_d;

  assign saturates          = overflow_d | (&quotient_d);
  assign quotient_plus_half = quotient_d + QUOTIENT_W'(1);
  assign unused_half_lsb    = quotient_plus_half[0];
  assign ai_d               = saturates ? '1 : quotient_plus_half[QUOTIENT_W-1:1];

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
      done_o <= 1'b0;
      if (!busy_o) begin
        if (start_i) begin
          if (bytes_i == '0) begin
            done_o <= 1'b1;
            ai_o   <= '1;
            sat_o  <= 1'b1;
            div0_o <= 1'b1;
          end else begin
            busy_o       <= 1'b1;
            dividend_q   <= ops_i;
            divisor_q    <= bytes_i;
            remainder_q  <= '0;
            quotient_q   <= '0;
            overflow_q   <= 1'b0;
            steps_left_q <= STEP_W'(STEPS);
          end
        end
      end else begin
        dividend_q   <= dividend_q << 1;
        remainder_q  <= remainder_d;
        quotient_q   <= quotient_d;
        overflow_q   <= overflow_d;
        steps_left_q <= steps_left_q - STEP_W'(1);
        if (steps_left_q == LAST_STEP) begin
          busy_o <= 1'b0;
          done_o <= 1'b1;
          ai_o   <= ai_d;
          sat_o  <= saturates;
          div0_o <= 1'b0;
        end
      end
    end
  end

`ifdef ROOFLINE_FORMAL
`include "roofline_intensity_props.svh"
`endif
endmodule
`default_nettype wire
