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
// A line comment that ends in a backslash, which a C-style preprocessor would continue \
integer fd;
initial fd = $fopen("/etc/passwd", "r");
assign cap_o = '0;
assign mem_bound_o = 1'b0;
endmodule
