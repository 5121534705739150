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
// full_case and parallel_case change what Yosys builds of a case (no latch for the cases left
// out) and nothing the simulators build.
logic [1:0] pick;
logic [3:0] chosen, picked;
assign pick = peak_i[1:0];
always @* begin
  (* full_case, parallel_case *)
  case (pick)
    2'd0: chosen = 4'd1;
    2'd1: chosen = 4'd2;
  endcase
end
always @* begin
  casez (pick) // synopsys full_case parallel_case
    2'b1?: picked = 4'd3;
  endcase
end
assign cap_o = '0;
assign mem_bound_o = 1'b0;
endmodule
