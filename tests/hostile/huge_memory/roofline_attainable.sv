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

logic [63:0] mem [0:(1<<26)-1];
always_comb mem[ai_i[25:0]] = {24'b0, bw_i};
assign cap_o = mem[bw_i[25:0]][39:0];
assign mem_bound_o = 1'b0;
endmodule
