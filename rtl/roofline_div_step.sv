`default_nettype none
// One step of a restoring division, shared by roofline_intensity and roofline_counts.
//
// Brings the next dividend bit down into the remainder, subtracts the divisor when it fits,
// and shifts the new quotient bit in at the bottom. Combinational; the caller registers
// remainder_o and quotient_o and feeds them back, one step per clock.
module roofline_div_step #(
  parameter int WIDTH      = 8,  // divisor and remainder bits
  parameter int QUOTIENT_W = 8   // quotient bits kept (at least 2)
) (
  input  logic [WIDTH-1:0]      remainder_i,
  input  logic                  next_bit_i,   // the dividend bit brought down
  input  logic [WIDTH-1:0]      divisor_i,
  input  logic [QUOTIENT_W-1:0] quotient_i,
  output logic [WIDTH-1:0]      remainder_o,
  output logic [QUOTIENT_W-1:0] quotient_o,
  output logic                  carry_out_o   // quotient_i's top bit, shifted out by this step
);
  roofline_param_check #(
    .WIDTH     (WIDTH),
    .QUOTIENT_W(QUOTIENT_W)
  ) u_param_check ();

  logic [WIDTH:0] partial;
  logic [WIDTH:0] difference;
  logic           fits;
  logic           unused_difference_msb;

  assign partial     = {remainder_i, next_bit_i};
  assign difference  = partial - {1'b0, divisor_i};
  assign fits        = partial >= {1'b0, divisor_i};
  assign remainder_o = fits ? difference[WIDTH-1:0] : partial[WIDTH-1:0];
  assign quotient_o  = {quotient_i[QUOTIENT_W-2:0], fits};
  assign carry_out_o = quotient_i[QUOTIENT_W-1];
  // After a subtraction the remainder is below the divisor, so its top bit is zero.
  assign unused_difference_msb = difference[WIDTH];
endmodule
`default_nettype wire
