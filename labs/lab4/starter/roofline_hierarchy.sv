// Lab 4 starter: roofline_hierarchy, one ceiling per memory level; the lowest binds.
//
// Keep the module name, the parameters and the ports: they are the contract the grader checks.
// As handed out, this file compiles and fails. You may hand in your lab 1 roofline_attainable.sv
// beside this file and instantiate it once per level.
module roofline_hierarchy #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]          peak_i,       // GFLOP/s
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,         // level l at [l*W +: W], GB/s
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i,         // level l at [l*W +: W], FLOP/B
  output logic [INT_BITS+FRAC_BITS-1:0]          cap_o,        // the lowest ceiling
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,  // each level's own cap
  output logic                                   mem_bound_o,  // some level is memory-bound
  output logic [$clog2(LEVELS+1)-1:0]            binding_o     // binding level, LEVELS for compute
);
  localparam int W     = INT_BITS + FRAC_BITS;
  localparam int IDX_W = $clog2(LEVELS + 1);

  // A suggested plan (any design that meets the contract earns full marks):
  //   - a generate loop over the levels: each level's full-precision product, verdict and cap;
  //   - a running minimum over the levels, in index order, on the full-precision products of
  //     the memory-bound levels only: a level takes the lead only when strictly lower, so on a
  //     tie the lower index stays; no memory-bound level means the compute roof binds.
  // TODO: replace these assignments.
  assign cap_o       = '0;
  assign level_cap_o = '0;
  assign mem_bound_o = 1'b0;
  assign binding_o   = IDX_W'(LEVELS);
endmodule
