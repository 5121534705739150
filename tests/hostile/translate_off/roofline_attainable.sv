module roofline_attainable #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i,
  input  logic [INT_BITS+FRAC_BITS-1:0] bw_i,
  input  logic [INT_BITS+FRAC_BITS-1:0] ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic                          mem_bound_o
);
// Yosys skips what lies between these comment pragmas; the simulators build it.
// synthesis translate_off
logic [3:0] simulated_only;
assign simulated_only = peak_i[3:0] + 4'd1;
// synthesis translate_on
// synopsys translate_off
logic [3:0] also_simulated_only;
// synopsys translate_on
/* pragma translate_off */
logic [3:0] and_this;
/* pragma translate_on */
assign cap_o = '0;
assign mem_bound_o = 1'b0;
endmodule
