`default_nettype none
// Attainable performance of one kernel against one memory level:
//   cap_o = round(min(peak, ai * bw)),  mem_bound_o = (ai * bw < peak) at full precision.
// Combinational. Rates and intensities are unsigned UQ(INT_BITS).(FRAC_BITS).
module roofline_attainable #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i,  // GFLOP/s
  input  logic [INT_BITS+FRAC_BITS-1:0] bw_i,    // GB/s
  input  logic [INT_BITS+FRAC_BITS-1:0] ai_i,    // FLOP/B
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,   // GFLOP/s
  output logic                          mem_bound_o
);
  localparam int PRODUCT_W = 2 * (INT_BITS + FRAC_BITS);

  logic [PRODUCT_W-1:0] unused_product;

  roofline_level #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS)
  ) u_level (
    .peak_i     (peak_i),
    .bw_i       (bw_i),
    .ai_i       (ai_i),
    .product_o  (unused_product),
    .mem_bound_o(mem_bound_o),
    .cap_o      (cap_o)
  );
endmodule
`default_nettype wire
