// Properties of roofline_attainable, multiplier included, for every input.
module props_attainable #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input logic [INT_BITS+FRAC_BITS-1:0] peak_i,
  input logic [INT_BITS+FRAC_BITS-1:0] bw_i,
  input logic [INT_BITS+FRAC_BITS-1:0] ai_i
);
  localparam int W = INT_BITS + FRAC_BITS;
  logic [W-1:0] cap;
  logic         mem_bound;
  roofline_attainable #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) dut (
    .peak_i, .bw_i, .ai_i, .cap_o(cap), .mem_bound_o(mem_bound)
  );

  logic [2*W-1:0] product;
  logic [2*W:0]   rounded;
  assign product = (2*W)'(ai_i) * (2*W)'(bw_i);
  assign rounded = ({1'b0, product} + (2*W+1)'(1 << (FRAC_BITS - 1))) >> FRAC_BITS;

  always @* begin
`ifdef PROP_CAP_LE_PEAK
    assert (cap <= peak_i);
`endif
`ifdef PROP_VERDICT
    assert (mem_bound == (product < ((2*W)'(peak_i) << FRAC_BITS)));
`endif
`ifdef PROP_CAP_IS_A_TERM
    assert (mem_bound ? ((2*W+1)'(cap) == rounded) : (cap == peak_i));
`endif
  end
endmodule
