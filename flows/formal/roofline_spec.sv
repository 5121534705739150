`default_nettype none
// The specification's rules written again, for the properties to compare the RTL with, sharing
// no code with rtl/: every comparison at full precision, as the spec states it.
//
// roofline_spec_round: one level's verdict and cap from its full-precision product ai * bw.
//   memory-bound when product < peak * 2^FRAC_BITS (at the ridge the compute roof binds);
//   the cap is the product rounded to nearest, ties up, when memory-bound, and peak otherwise.
module roofline_spec_round #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]     peak,
  input  logic [2*(INT_BITS+FRAC_BITS)-1:0] product,
  output logic                              mem_bound,
  output logic [INT_BITS+FRAC_BITS-1:0]     cap,
  output logic [2*(INT_BITS+FRAC_BITS):0]   rounded     // round(product / 2^FRAC_BITS), never truncated
);
  localparam int W = INT_BITS + FRAC_BITS;
  assign mem_bound = product < ((2*W)'(peak) << FRAC_BITS);
  assign rounded   = ({1'b0, product} + ((2*W+1)'(1) << (FRAC_BITS - 1))) >> FRAC_BITS;
  assign cap       = mem_bound ? rounded[W-1:0] : peak;
endmodule

// roofline_spec_hierarchy: every level's product, verdict and cap; the binding level found
// pairwise: level l binds when it is memory-bound and no other memory-bound level m has a lower
// product, or an equal one with m < l. binding is LEVELS when no level is memory-bound.
module roofline_spec_hierarchy #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16,
  parameter int LEVELS    = 3
) (
  input  logic [INT_BITS+FRAC_BITS-1:0]            peak,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   bw,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   ai,
  output logic [LEVELS*2*(INT_BITS+FRAC_BITS)-1:0] product,
  output logic [LEVELS-1:0]                        level_mem_bound,
  output logic [LEVELS-1:0]                        binds,     // exactly one bit set, or none
  output logic [INT_BITS+FRAC_BITS-1:0]            cap,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0]   level_cap,
  output logic                                     mem_bound,
  output logic [$clog2(LEVELS+1)-1:0]              binding
);
  localparam int W     = INT_BITS + FRAC_BITS;
  localparam int IDX_W = $clog2(LEVELS + 1);

  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    logic [2*W:0] unused_rounded;
    assign product[l*2*W +: 2*W] = (2*W)'(ai[l*W +: W]) * (2*W)'(bw[l*W +: W]);
    roofline_spec_round #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS)) u_round (
      .peak, .product(product[l*2*W +: 2*W]), .mem_bound(level_mem_bound[l]), .cap(level_cap[l*W +: W]),
      .rounded(unused_rounded)
    );
    // Beaten by a memory-bound level m with a lower product, or an equal one and a lower index.
    logic [LEVELS-1:0] beaten_by;
    for (genvar m = 0; m < LEVELS; m++) begin : g_other
      if (m < l) begin : g_lower
        assign beaten_by[m] = level_mem_bound[m] && product[m*2*W +: 2*W] <= product[l*2*W +: 2*W];
      end else if (m > l) begin : g_higher
        assign beaten_by[m] = level_mem_bound[m] && product[m*2*W +: 2*W] < product[l*2*W +: 2*W];
      end else begin : g_self
        assign beaten_by[m] = 1'b0;
      end
    end
    assign binds[l] = level_mem_bound[l] && beaten_by == '0;
  end

  assign mem_bound = |level_mem_bound;
  always_comb begin
    binding = IDX_W'(LEVELS);
    cap     = peak;
    for (int l = 0; l < LEVELS; l++) begin
      if (binds[l]) begin
        binding = IDX_W'(l);
        cap     = level_cap[l*W +: W];
      end
    end
  end
endmodule
`default_nettype wire
