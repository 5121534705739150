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

logic [99999999:0] bits;
for (genvar i = 0; i < 100000000; i++) begin : gen_bits
  assign bits[i] = ai_i[i % 40] ^ bw_i[(i * 7) % 40];
end
assign cap_o = bits[39:0];
assign mem_bound_o = bits[40];
endmodule
