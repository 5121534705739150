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
// An escaped identifier that is a keyword once written plain: it cannot be printed back.
logic \module ;
assign \module = 1'b0;
assign cap_o = '0;
assign mem_bound_o = 1'b0;
endmodule
