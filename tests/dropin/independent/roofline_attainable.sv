// An independent implementation of the contract, written procedurally: it proves that the
// harness accepts any correct design, not only the project's structure.
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
  localparam int W = INT_BITS + FRAC_BITS;
  logic [2*W:0] product, scaled_peak, rounded;
  always @* begin
    product     = {1'b0, ai_i} * {1'b0, bw_i};
    scaled_peak = {{(W+1-FRAC_BITS){1'b0}}, peak_i, {FRAC_BITS{1'b0}}};
    rounded     = (product + ({{(2*W){1'b0}}, 1'b1} << (FRAC_BITS - 1))) >> FRAC_BITS;
    if (scaled_peak > product) begin
      mem_bound_o = 1'b1;
      cap_o       = rounded[W-1:0];
    end else begin
      mem_bound_o = 1'b0;
      cap_o       = peak_i;
    end
  end
endmodule
