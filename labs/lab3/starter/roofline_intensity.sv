// Lab 3 starter: roofline_intensity, a sequential divider for ai = ops / bytes.
//
// ai_o = round(ops * 2^FRAC_BITS / bytes), to nearest with ties up, saturating to all ones.
// Keep the module name, the parameters and the ports: they are the contract the grader checks.
// As handed out, this file compiles and fails: done_o never pulses, so the tests time out.
module roofline_intensity #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int COUNT_BITS = 64
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,   // active low, asynchronous
  input  logic                          start_i,  // sampled on a rising edge while busy_o is low
  input  logic [COUNT_BITS-1:0]         ops_i,    // FLOP
  input  logic [COUNT_BITS-1:0]         bytes_i,  // B
  output logic                          busy_o,
  output logic                          done_o,   // one-cycle pulse: ai_o, sat_o, div0_o valid
  output logic [INT_BITS+FRAC_BITS-1:0] ai_o,     // FLOP/B
  output logic                          sat_o,    // the quotient did not fit, or bytes == 0
  output logic                          div0_o    // bytes == 0
);
  localparam int W = INT_BITS + FRAC_BITS;

  // A suggested plan (any design that meets the contract earns full marks):
  //   - on start, latch ops and bytes; bytes == 0 finishes at once (div0);
  //   - a restoring divider: each cycle, shift the next dividend bit into the remainder and
  //     subtract bytes when it fits; that cycle's quotient bit is 1 when it did;
  //   - divide ops * 2^(FRAC_BITS+1), one extra fraction bit, then round: (q + 1) >> 1;
  //   - any quotient bit above the W+1 you keep means the result saturates.
  // TODO: the state registers (always_ff @(posedge clk_i or negedge rst_ni)) and the step logic.
  assign busy_o = 1'b0;
  assign done_o = 1'b0;
  assign ai_o   = '0;
  assign sat_o  = 1'b0;
  assign div0_o = 1'b0;
endmodule
