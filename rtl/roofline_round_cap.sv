`default_nettype none
// The verdict and the rounded cap of one level, from its full-precision product ai * bw.
//
// mem_bound_o: product < peak * 2^FRAC_BITS (at the ridge the compute roof binds).
// cap_o: the product rounded to nearest, ties up, when memory-bound; peak otherwise.
// Shared by roofline_level (combinational) and roofline_hierarchy_pipe (registered product).
module roofline_round_cap #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]     peak_i,
  input  logic [2*(INT_BITS+FRAC_BITS)-1:0] product_i,   // ai * bw, UQ(2*INT_BITS).(2*FRAC_BITS)
  output logic                              mem_bound_o,
  output logic [INT_BITS+FRAC_BITS-1:0]     cap_o
);
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;
  // A memory-bound product is below peak * 2^FRAC_BITS < 2^(W+FRAC_BITS), so its
  // rounded value fits in the low ROUND_W bits with no carry out.
  localparam int ROUND_W   = W + FRAC_BITS;
  localparam logic [ROUND_W-1:0] ROUND_HALF = ROUND_W'(1) << (FRAC_BITS - 1);

  roofline_param_check #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS)
  ) u_param_check ();

  logic [ROUND_W-1:0]   rounded_sum;  // product + half an output LSB
  logic                 unused_round_lsbs;

  // product < peak * 2^FRAC_BITS (at the ridge, equal, the compute roof binds). The right side's
  // low FRAC_BITS are zero, so this holds exactly when the product's bits above them, as a
  // number, are below peak: a W-bit comparison and a test of the top INT_BITS for zero, side by
  // side, where a PRODUCT_W-bit comparison would be one carry chain twice as long (the
  // pipeline's longest path on an iCE40).
  assign mem_bound_o = (product_i[PRODUCT_W-1:ROUND_W] == '0) && (product_i[ROUND_W-1:FRAC_BITS] < peak_i);

  // Round to nearest, ties up: add half an LSB, then truncate.
  assign rounded_sum       = product_i[ROUND_W-1:0] + ROUND_HALF;
  assign unused_round_lsbs = ^rounded_sum[FRAC_BITS-1:0];
  assign cap_o             = mem_bound_o ? rounded_sum[ROUND_W-1:FRAC_BITS] : peak_i;
endmodule
`default_nettype wire
