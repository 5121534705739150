// Lab 1 starter: roofline_attainable, the attainable performance against one roof.
//
// Keep the module name, the parameters and the ports: they are the contract the grader checks.
// As handed out, this file compiles and fails every test. Replace each TODO.
module roofline_attainable #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i,      // GFLOP/s, UQ(INT_BITS).(FRAC_BITS)
  input  logic [INT_BITS+FRAC_BITS-1:0] bw_i,        // GB/s
  input  logic [INT_BITS+FRAC_BITS-1:0] ai_i,        // FLOP/B
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,       // round(min(peak, ai * bw))
  output logic                          mem_bound_o  // ai * bw < peak, at full precision
);
  localparam int W = INT_BITS + FRAC_BITS;

  // TODO 1: the product ai_i * bw_i at full precision. Make its width 2*W explicitly: in
  //         Verilog the width of a product is the width of its context, not of its result.
  // TODO 2: the verdict. Compare the product with peak_i at the same scale (the product has
  //         2*FRAC_BITS fraction bits, peak_i has FRAC_BITS). At the ridge the compute roof binds.
  // TODO 3: the cap. Memory-bound: the product rounded to FRAC_BITS fraction bits (add half an
  //         LSB, then drop the low FRAC_BITS bits). Otherwise: peak_i.
  assign cap_o       = '0;
  assign mem_bound_o = 1'b0;
endmodule
