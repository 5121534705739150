`default_nettype none
// Properties of roofline_counts, attached by its ports: they check any implementation of its
// contract. Every start, peak, bandwidth and count pattern is free but for a reset in the first
// cycle.
//
// A harness follows each placement the design accepts (start_i while busy_o is low) and counts
// its cycles. At the ports, always:
//   - busy_o and done_o are low in the first cycle after a reset;
//   - busy_o is high while a placement runs until its done_o, and low while none runs;
//   - every done_o belongs to one accepted start, within LEVELS * (COUNT_BITS + W + 2) + 2
//     cycles (the bound the benches hold every implementation to): a pulse, never twice;
//   - every output (cap_o, level_cap_o, mem_bound_o, binding_o) holds between done_o pulses.
// PROP_DATA: at done_o, every output equals the contract's, from a reference written from the
//   spec for all levels at once: a level is memory-bound when bytes > 0 and ops * bw < peak *
//   bytes; its cap is then round(ops * bw / bytes), ties up, else peak; the binding level is
//   found pairwise, comparing ops * bw_l * bytes_m with ops * bw_m * bytes_l (so that with
//   ops == 0 every memory-bound level ties, and the lowest index wins).
//
// ROOFLINE_PROBES (make prove defines it when the design has the signals; see sby.py): the
// project's registers, connected after flattening, with its own latency (2 cycles a level, and
// W + 1 more for a memory-bound one, plus 1) and the invariants that let k-induction close: the
// operands held, the level and state, the divider's remainder below its divisor (the step's
// precondition) and, with PROP_DATA, the partial quotient, the caps found and the lead so far.
module props_counts #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int COUNT_BITS = 64
) (
  input logic                                   clk_i,
  input logic                                   rst_ni,
  input logic                                   start_i,
  input logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input logic [COUNT_BITS-1:0]                  ops_i,
  input logic [LEVELS*COUNT_BITS-1:0]           bytes_i
);
  localparam int W           = INT_BITS + FRAC_BITS;
  localparam int C           = COUNT_BITS;
  localparam int IDX_W       = $clog2(LEVELS + 1);
  localparam int PRODUCT_W   = C + W;
  localparam int MAX_LATENCY = LEVELS * (C + W + 2) + 2;
  localparam int ELAPSED_W   = $clog2(MAX_LATENCY + 2);
  localparam logic [IDX_W-1:0] COMPUTE_BINDS = IDX_W'(LEVELS);

  logic                busy_o, done_o, mem_bound_o;
  logic [W-1:0]        cap_o;
  logic [LEVELS*W-1:0] level_cap_o;
  logic [IDX_W-1:0]    binding_o;
  roofline_counts #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .COUNT_BITS(COUNT_BITS)) dut (
    .clk_i, .rst_ni, .start_i, .peak_i, .bw_i, .ops_i, .bytes_i,
    .busy_o, .done_o, .cap_o, .level_cap_o, .mem_bound_o, .binding_o
  );

  logic past_valid = 1'b0;
  logic past_reset, past_rst_n, past_running;
  logic [W+LEVELS*W+1+IDX_W-1:0] past_results;
  always_ff @(posedge clk_i) begin
    past_valid   <= 1'b1;
    past_reset   <= !rst_ni;
    past_rst_n  <= rst_ni;
    past_running <= running;
    past_results <= {cap_o, level_cap_o, mem_bound_o, binding_o};
  end
  always_comb if (!past_valid) assume (!rst_ni);

  // The placement in flight, its operands and its age (its latency in the done_o cycle).
  logic                 accept, running;
  logic [ELAPSED_W-1:0] elapsed;
  logic [W-1:0]         f_peak;
  logic [LEVELS*W-1:0]  f_bw;
  logic [C-1:0]         f_ops;
  logic [LEVELS*C-1:0]  f_bytes;
  assign accept = rst_ni && start_i && !busy_o;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      running <= 1'b0;
      elapsed <= '0;
    end else if (accept) begin
      running <= 1'b1;
      elapsed <= ELAPSED_W'(1);
    end else if (done_o) begin
      running <= 1'b0;
    end else if (running && elapsed != '1) begin
      elapsed <= elapsed + 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (accept) begin
      f_peak  <= peak_i;
      f_bw    <= bw_i;
      f_ops   <= ops_i;
      f_bytes <= bytes_i;
    end
  end

  always_comb begin
    if (rst_ni) begin
      if (past_valid && past_reset) assert (!busy_o && !done_o);
      if (done_o) assert (running);
      if (running && !done_o) assert (busy_o);
      if (!running) assert (!busy_o);
      if (running) assert (elapsed <= ELAPSED_W'(MAX_LATENCY));
      if (running && !done_o) assert (elapsed < ELAPSED_W'(MAX_LATENCY));
      if (past_valid && past_rst_n && !past_reset && !done_o) begin
        assert ({cap_o, level_cap_o, mem_bound_o, binding_o} == past_results);   // every output holds
      end
    end
  end

  // The contract for the placement in flight, all levels at once.
  localparam int WIDE_W = 2 * C + W;
  logic [LEVELS-1:0]   f_mem_bound;
  logic [LEVELS*W-1:0] f_level_cap;
  logic [IDX_W-1:0]    f_binding;
  logic [W-1:0]        f_cap;
  for (genvar l = 0; l < LEVELS; l++) begin : g_level
    logic [C-1:0]         bytes;
    logic [W-1:0]         bw;
    logic [PRODUCT_W-1:0] memory_side, compute_side;
    logic [PRODUCT_W+1:0] twice_quotient;
    assign bytes          = f_bytes[l*C +: C];
    assign bw             = f_bw[l*W +: W];
    assign memory_side    = PRODUCT_W'(f_ops) * PRODUCT_W'(bw);
    assign compute_side   = PRODUCT_W'(f_peak) * PRODUCT_W'(bytes);
    assign f_mem_bound[l] = bytes != '0 && memory_side < compute_side;
`ifdef PROP_DATA
    assign twice_quotient = ((PRODUCT_W+2)'(memory_side) << 1) / (PRODUCT_W+2)'(bytes);
`else
    assign twice_quotient = '0;
`endif
    assign f_level_cap[l*W +: W] = f_mem_bound[l] ? W'((twice_quotient + 1'b1) >> 1) : f_peak;
  end
  always_comb begin
    f_binding = COMPUTE_BINDS;
    f_cap     = f_peak;
    for (int l = LEVELS - 1; l >= 0; l--) begin
      logic lowest;
      lowest = f_mem_bound[l];
      for (int m = 0; m < LEVELS; m++) begin
        if (m != l && f_mem_bound[m]) begin
          // rate_m < rate_l, or equal with m < l: level m beats level l.
          if (WIDE_W'(f_ops) * WIDE_W'(f_bw[m*W +: W]) * WIDE_W'(f_bytes[l*C +: C])
              < WIDE_W'(f_ops) * WIDE_W'(f_bw[l*W +: W]) * WIDE_W'(f_bytes[m*C +: C])) lowest = 1'b0;
          if (m < l && WIDE_W'(f_ops) * WIDE_W'(f_bw[m*W +: W]) * WIDE_W'(f_bytes[l*C +: C])
                    == WIDE_W'(f_ops) * WIDE_W'(f_bw[l*W +: W]) * WIDE_W'(f_bytes[m*C +: C])) lowest = 1'b0;
        end
      end
      if (lowest) begin
        f_binding = IDX_W'(l);
        f_cap     = f_level_cap[l*W +: W];
      end
    end
  end
`ifdef PROP_DATA
  always_comb begin
    if (rst_ni && done_o) begin
      assert (level_cap_o == f_level_cap);
      assert (binding_o == f_binding);
      assert (mem_bound_o == (f_binding != COMPUTE_BINDS));
      assert (cap_o == f_cap);
    end
  end
`endif

`ifdef ROOFLINE_PROBES
  localparam int QUOTIENT_W = W + 1;
  localparam int STEP_W     = $clog2(QUOTIENT_W + 1);
  // The project's FSM: 0 Idle, 1 MemorySide, 2 ComputeSide, 3 Divide.
  (* keep *) logic [1:0]            probe_state_q;
  (* keep *) logic [IDX_W-1:0]      probe_level_q, probe_best_q;
  (* keep *) logic [W-1:0]          probe_peak_q;
  (* keep *) logic [LEVELS*W-1:0]   probe_bw_q;
  (* keep *) logic [C-1:0]          probe_ops_q, probe_remainder_q;
  (* keep *) logic [LEVELS*C-1:0]   probe_bytes_q;
  (* keep *) logic [STEP_W-1:0]     probe_steps_left_q;

  // Which levels the design divided (the multipliers may be cut: no product here), and the cycles
  // the levels before level_q took: 2 each, and QUOTIENT_W more for one that divided.
  logic [LEVELS-1:0]    f_divided;
  logic [ELAPSED_W-1:0] f_level_start;   // elapsed in the level's MemorySide cycle
  logic [C-1:0]         f_bytes_cur;
  always_ff @(posedge clk_i) begin
    if (accept) f_divided <= '0;
    else if (probe_state_q == 2'd3) f_divided[probe_level_q] <= 1'b1;
  end
  always_comb begin
    f_level_start = ELAPSED_W'(1);
    f_bytes_cur   = '0;
    for (int l = 0; l < LEVELS; l++) begin
      if (IDX_W'(l) < probe_level_q) f_level_start = f_level_start + ELAPSED_W'(f_divided[l] ? 2 + QUOTIENT_W : 2);
      if (IDX_W'(l) == probe_level_q) f_bytes_cur = f_bytes[l*C +: C];
    end
  end
  always_comb begin
    if (rst_ni) begin
      assert (busy_o == (probe_state_q != 2'd0));
      if (busy_o) begin
        assert (running && !done_o);
        assert ({probe_peak_q, probe_bw_q, probe_ops_q, probe_bytes_q} == {f_peak, f_bw, f_ops, f_bytes});
        assert (probe_level_q < IDX_W'(LEVELS));
        assert (probe_best_q == COMPUTE_BINDS || probe_best_q < probe_level_q
                || (probe_best_q == probe_level_q && probe_state_q == 2'd3));
        for (int l = 0; l < LEVELS; l++) if (IDX_W'(l) > probe_level_q) assert (!f_divided[l]);
      end
      if (probe_state_q == 2'd1) assert (elapsed == f_level_start && !f_divided[probe_level_q]);
      if (probe_state_q == 2'd2) assert (elapsed == f_level_start + 1'b1 && !f_divided[probe_level_q]);
      if (probe_state_q == 2'd3) begin
        assert (probe_steps_left_q >= STEP_W'(1) && probe_steps_left_q <= STEP_W'(QUOTIENT_W));
        assert (elapsed == f_level_start + ELAPSED_W'(2 + QUOTIENT_W) - ELAPSED_W'(probe_steps_left_q));
        if (probe_steps_left_q != STEP_W'(QUOTIENT_W)) assert (f_divided[probe_level_q]);
      end
      if (running && !busy_o) assert (done_o);
`ifdef PROP_DATA
      // The divider step's precondition; it follows from the verdict, so only with the products.
      if (probe_state_q == 2'd3) assert (f_mem_bound[probe_level_q] && probe_remainder_q < f_bytes_cur);
`endif
    end
  end
`endif

  // Covers: each must be reached, or a property above could hold vacuously.
  always_ff @(posedge clk_i) begin
    if (past_valid && rst_ni) begin
      cover (done_o && binding_o == COMPUTE_BINDS);                            // compute binds
      cover (done_o && binding_o == '0 && mem_bound_o);                        // level 0 binds
      cover (done_o && binding_o == IDX_W'(LEVELS - 1) && mem_bound_o);        // the last level binds
      cover (done_o && f_bytes[C-1:0] == '0 && f_ops != '0);                   // a level with no traffic
      cover (done_o && f_ops != '0 && f_peak != '0 && f_bytes[C-1:0] != '0      // the exact ridge (peak or bytes 0
             && PRODUCT_W'(f_ops) * PRODUCT_W'(f_bw[W-1:0])                       // would be vacuous)
                == PRODUCT_W'(f_peak) * PRODUCT_W'(f_bytes[C-1:0]));
      cover (done_o && start_i && !busy_o);                                    // back to back
      cover (busy_o && start_i);                                               // a start ignored while busy
    end
    if (past_valid) cover (!rst_ni && past_rst_n && past_running);                 // a reset mid-placement
  end
  if (LEVELS > 1) begin : g_tie
    always_ff @(posedge clk_i) begin
      if (past_valid && rst_ni) cover (done_o && f_mem_bound[0] && f_mem_bound[1] && f_ops != '0 && binding_o == '0
                                       && PRODUCT_W'(f_bw[0 +: W]) * PRODUCT_W'(f_bytes[C +: C])
                                          == PRODUCT_W'(f_bw[W +: W]) * PRODUCT_W'(f_bytes[0 +: C]));  // a tie of memory-bound levels
    end
  end
endmodule
`default_nettype wire
