// Lab 2 starter: a roofline_attainable that passes the documents' cases at UQ24.16 and still
// has two bugs of this lab's kind. Find them with the tests, fix them, and make the module
// right for every INT_BITS >= 1 and FRAC_BITS >= 1.
//
// Keep the module name, the parameters and the ports: they are the contract the grader checks.
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

  logic [2*W-1:0] product;
  assign product = ai_i * bw_i;  // 2*W bits wide: the context sets a product's width

  // The product has 2*FRAC_BITS fraction bits; peak_i has FRAC_BITS.
  assign mem_bound_o = product < {peak_i, 16'd0};

  // Memory-bound: the product back at FRAC_BITS fraction bits.
  assign cap_o = mem_bound_o ? product[16 +: W] : peak_i;
endmodule
