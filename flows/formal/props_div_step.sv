// Properties of roofline_div_step, the restoring-division step both dividers repeat, for every
// input at the widths roofline_intensity and roofline_counts use by default. The dividers keep
// remainder < divisor between steps (their SymbiYosys properties and benches check the whole
// division), so each property assumes it of the step's input and proves it of its output.
module props_div_step #(
  parameter int WIDTH      = 64,
  parameter int QUOTIENT_W = 41
) (
  input logic [WIDTH-1:0]      remainder_i,
  input logic                  next_bit_i,
  input logic [WIDTH-1:0]      divisor_i,
  input logic [QUOTIENT_W-1:0] quotient_i
);
  logic [WIDTH-1:0]      remainder;
  logic [QUOTIENT_W-1:0] quotient;
  logic                  carry;
  roofline_div_step #(.WIDTH(WIDTH), .QUOTIENT_W(QUOTIENT_W)) dut (
    .remainder_i, .next_bit_i, .divisor_i, .quotient_i, .remainder_o(remainder), .quotient_o(quotient),
    .carry_out_o(carry)
  );

  always @* begin
    if (remainder_i < divisor_i) begin
`ifdef PROP_DIVIDES
      // 2 * remainder + bit == new quotient bit * divisor + new remainder, the new remainder below the divisor.
      assert ({remainder_i, next_bit_i} == (WIDTH+1)'(quotient[0] ? divisor_i : '0) + (WIDTH+1)'(remainder));
      assert (remainder < divisor_i);
`endif
`ifdef PROP_SHIFTS
      // The quotient moves up one bit; the bit that leaves the top is carry_out_o.
      assert (quotient[QUOTIENT_W-1:1] == quotient_i[QUOTIENT_W-2:0] && carry == quotient_i[QUOTIENT_W-1]);
`endif
    end
  end
endmodule
