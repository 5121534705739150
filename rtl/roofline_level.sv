`default_nettype none
// One memory level against the compute roof, at full precision.
//
// The shared core of roofline_attainable and roofline_hierarchy: it also exposes the
// full-precision product ai * bw so the hierarchy can pick the binding level without
// rounding first. All rates and intensities are unsigned UQ(INT_BITS).(FRAC_BITS).
module roofline_level #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]     peak_i,
  input  logic [INT_BITS+FRAC_BITS-1:0]     bw_i,
  input  logic [INT_BITS+FRAC_BITS-1:0]     ai_i,
  output logic [2*(INT_BITS+FRAC_BITS)-1:0] product_o,   // ai * bw, UQ(2*INT_BITS).(2*FRAC_BITS)
  output logic                              mem_bound_o, // ai * bw < peak
  output logic [INT_BITS+FRAC_BITS-1:0]     cap_o        // round(min(peak, ai * bw))
);
  localparam int PRODUCT_W = 2 * (INT_BITS + FRAC_BITS);

  roofline_param_check #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS)
  ) u_param_check ();

  assign product_o = PRODUCT_W'(ai_i) * PRODUCT_W'(bw_i);

  roofline_round_cap #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS)
  ) u_round_cap (
    .peak_i     (peak_i),
    .product_i  (product_o),
    .mem_bound_o(mem_bound_o),
    .cap_o      (cap_o)
  );
endmodule
`default_nettype wire
