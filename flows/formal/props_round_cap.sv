// Properties of roofline_round_cap, for every peak and every full-precision product ai * bw
// (the product is a free input here, so every input of roofline_attainable is covered).
// make prove reads this file with one of the PROP_* macros defined and proves that property.
module props_round_cap #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input logic [INT_BITS+FRAC_BITS-1:0]     peak_i,
  input logic [2*(INT_BITS+FRAC_BITS)-1:0] product_i
);
  localparam int W = INT_BITS + FRAC_BITS;
  logic         mem_bound;
  logic [W-1:0] cap;
  roofline_round_cap #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) dut (
    .peak_i, .product_i, .mem_bound_o(mem_bound), .cap_o(cap)
  );

  // The spec's rules written again: round to nearest, ties up, of the product's value.
  logic [2*W:0] rounded;
  assign rounded = ({1'b0, product_i} + (2*W+1)'(1 << (FRAC_BITS - 1))) >> FRAC_BITS;

  always @* begin
`ifdef PROP_CAP_LE_PEAK
    assert (cap <= peak_i);
`endif
`ifdef PROP_VERDICT
    assert (mem_bound == (product_i < ((2*W)'(peak_i) << FRAC_BITS)));
`endif
`ifdef PROP_CAP_IS_A_TERM
    assert (mem_bound ? ((2*W+1)'(cap) == rounded) : (cap == peak_i));
`endif
  end
endmodule
