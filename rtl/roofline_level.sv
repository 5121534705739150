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
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;
  // A memory-bound product is below peak * 2^FRAC_BITS < 2^(W+FRAC_BITS), so its
  // rounded value fits in the low ROUND_W bits with no carry out.
  localparam int ROUND_W   = W + FRAC_BITS;
  localparam logic [ROUND_W-1:0] ROUND_HALF = ROUND_W'(1) << (FRAC_BITS - 1);

  if (INT_BITS < 1) begin : gen_int_bits_check
    // Elaboration stops here on every tool: the missing module's name is the message.
    ERROR_roofline_INT_BITS_must_be_at_least_1 u_param_error ();
  end
  if (FRAC_BITS < 1) begin : gen_frac_bits_check
    ERROR_roofline_FRAC_BITS_must_be_at_least_1 u_param_error ();
  end

  logic [PRODUCT_W-1:0] peak_scaled;  // peak in the product's format
  logic [ROUND_W-1:0]   rounded_sum;  // product + half an output LSB
  logic                 unused_round_lsbs;

  assign product_o   = PRODUCT_W'(ai_i) * PRODUCT_W'(bw_i);
  assign peak_scaled = PRODUCT_W'({peak_i, {FRAC_BITS{1'b0}}});
  // At the ridge (equal) the compute roof binds.
  assign mem_bound_o = product_o < peak_scaled;

  // Round to nearest, ties up: add half an LSB, then truncate.
  assign rounded_sum       = product_o[ROUND_W-1:0] + ROUND_HALF;
  assign unused_round_lsbs = ^rounded_sum[FRAC_BITS-1:0];
  assign cap_o             = mem_bound_o ? rounded_sum[ROUND_W-1:FRAC_BITS] : peak_i;
endmodule
