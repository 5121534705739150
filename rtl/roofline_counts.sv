`default_nettype none
// A kernel placed from its counts, rounding once: for each memory level l,
//   level_cap_l = round(min(peak, ops * bw_l / bytes_l)), ties up,
// with the verdict taken by cross-multiplication (ops * bw_l < peak * bytes_l, no division)
// and the cap divided only when the level is memory-bound. The binding level is the
// memory-bound level with the smallest ops * bw_l / bytes_l, compared exactly by
// cross-multiplication (bw_a * bytes_b < bw_b * bytes_a), the lowest index on a tie;
// binding_o is LEVELS when the compute roof binds. bytes_l == 0 means no traffic at that
// level: it is never memory-bound.
//
// Sequential: one level after another, one comparison cycle and, for a memory-bound level,
// a restoring division of 2 * ops * bw_l by bytes_l, one quotient bit per clock.
// Handshake as roofline_intensity: start_i is sampled while busy_o is low; done_o pulses for
// one cycle with every output valid, and they hold until the next done_o.
// Latency: at most LEVELS * (COUNT_BITS + INT_BITS + FRAC_BITS + 2) + 2 cycles.
module roofline_counts #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int COUNT_BITS = 64
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 start_i,
  input  logic [INT_BITS+FRAC_BITS-1:0]        peak_i,   // GFLOP/s
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,   // GB/s per level
  input  logic [COUNT_BITS-1:0]                ops_i,    // FLOP
  input  logic [LEVELS*COUNT_BITS-1:0]         bytes_i,  // B per level
  output logic                                 busy_o,
  output logic                                 done_o,
  output logic [INT_BITS+FRAC_BITS-1:0]        cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic                                 mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0]          binding_o
);
  localparam int W          = INT_BITS + FRAC_BITS;
  localparam int C          = COUNT_BITS;
  localparam int IDX_W      = $clog2(LEVELS + 1);
  localparam int PRODUCT_W  = C + W;           // ops * bw and peak * bytes, exactly
  localparam int DIVIDEND_W = PRODUCT_W + 1;   // 2 * ops * bw: one bit below the result's LSB
  localparam int QUOTIENT_W = W + 1;           // a memory-bound quotient is below 2 * peak
  localparam int STEP_W     = $clog2(DIVIDEND_W + 1);
  localparam logic [IDX_W-1:0]  COMPUTE_BINDS = IDX_W'(LEVELS);
  localparam logic [IDX_W-1:0]  LAST_LEVEL    = IDX_W'(LEVELS - 1);
  localparam logic [STEP_W-1:0] LAST_STEP     = STEP_W'(1);

  roofline_param_check #(
    .INT_BITS  (INT_BITS),
    .FRAC_BITS (FRAC_BITS),
    .LEVELS    (LEVELS),
    .COUNT_BITS(COUNT_BITS)
  ) u_param_check ();

  typedef enum logic [1:0] {Idle, Compare, Divide, Finish} state_e;
  state_e state_q;

  logic [W-1:0]        peak_q;
  logic [LEVELS*W-1:0] bw_q;
  logic [C-1:0]        ops_q;
  logic [LEVELS*C-1:0] bytes_q;
  logic [IDX_W-1:0]    level_q;     // the level being compared or divided
  logic [IDX_W-1:0]    best_q;      // the binding level so far, COMPUTE_BINDS for none
  logic [W-1:0]        best_bw_q;
  logic [C-1:0]        best_bytes_q;

  // The current level's operands and its comparisons, at full precision.
  logic [W-1:0]         bw_cur;
  logic [C-1:0]         bytes_cur;
  logic [PRODUCT_W-1:0] memory_side, compute_side, current_vs_best, best_vs_current;
  logic                 mem_bound_cur, takes_lead;

  assign bw_cur          = bw_q[level_q*W +: W];
  assign bytes_cur       = bytes_q[level_q*C +: C];
  assign memory_side     = PRODUCT_W'(ops_q) * PRODUCT_W'(bw_cur);
  assign compute_side    = PRODUCT_W'(peak_q) * PRODUCT_W'(bytes_cur);
  assign mem_bound_cur   = (bytes_cur != '0) && (memory_side < compute_side);
  // ops * bw_cur / bytes_cur < ops * best_bw / best_bytes, with ops > 0 cancelled; with
  // ops == 0 every memory-bound level's cap is 0, a tie the lowest index wins.
  assign current_vs_best = PRODUCT_W'(bw_cur) * PRODUCT_W'(best_bytes_q);
  assign best_vs_current = PRODUCT_W'(best_bw_q) * PRODUCT_W'(bytes_cur);
  assign takes_lead      = mem_bound_cur
                         && ((best_q == COMPUTE_BINDS) || ((ops_q != '0) && (current_vs_best < best_vs_current)));

  // The restoring divider: 2 * ops * bw_cur / bytes_cur.
  logic [DIVIDEND_W-1:0] dividend_q;
  logic [C-1:0]          remainder_q;
  logic [QUOTIENT_W-1:0] quotient_q;
  logic [STEP_W-1:0]     steps_left_q;
  logic [C-1:0]          remainder_d;
  logic [QUOTIENT_W-1:0] quotient_d, quotient_plus_half;
  logic                  quotient_carry;
  logic                  unused_bits;

  // Higher quotient bits are zero: a memory-bound quotient is below 2 * peak < 2^(W+1), so
  // the bit the step shifts out is unused.
  roofline_div_step #(
    .WIDTH     (C),
    .QUOTIENT_W(QUOTIENT_W)
  ) u_step (
    .remainder_i(remainder_q),
    .next_bit_i (dividend_q[DIVIDEND_W-1]),
    .divisor_i  (bytes_cur),
    .quotient_i (quotient_q),
    .remainder_o(remainder_d),
    .quotient_o (quotient_d),
    .carry_out_o(quotient_carry)
  );
  assign quotient_plus_half = quotient_d + QUOTIENT_W'(1);
  assign unused_bits        = quotient_carry ^ quotient_plus_half[0];

  logic last_level;
  assign last_level = level_q == LAST_LEVEL;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= Idle;
      busy_o       <= 1'b0;
      done_o       <= 1'b0;
      cap_o        <= '0;
      level_cap_o  <= '0;
      mem_bound_o  <= 1'b0;
      binding_o    <= '0;
      peak_q       <= '0;
      bw_q         <= '0;
      ops_q        <= '0;
      bytes_q      <= '0;
      level_q      <= '0;
      best_q       <= COMPUTE_BINDS;
      best_bw_q    <= '0;
      best_bytes_q <= '0;
      dividend_q   <= '0;
      remainder_q  <= '0;
      quotient_q   <= '0;
      steps_left_q <= '0;
    end else begin
      done_o <= 1'b0;
      case (state_q)
        Idle: begin
          if (start_i) begin
            state_q <= Compare;
            busy_o  <= 1'b1;
            peak_q  <= peak_i;
            bw_q    <= bw_i;
            ops_q   <= ops_i;
            bytes_q <= bytes_i;
            level_q <= '0;
            best_q  <= COMPUTE_BINDS;
          end
        end
        Compare: begin
          if (takes_lead) begin
            best_q       <= level_q;
            best_bw_q    <= bw_cur;
            best_bytes_q <= bytes_cur;
          end
          if (mem_bound_cur) begin
            state_q      <= Divide;
            dividend_q   <= {memory_side, 1'b0};
            remainder_q  <= '0;
            quotient_q   <= '0;
            steps_left_q <= STEP_W'(DIVIDEND_W);
          end else begin
            level_cap_o[level_q*W +: W] <= peak_q;
            level_q <= level_q + IDX_W'(1);
            state_q <= last_level ? Finish : Compare;
          end
        end
        Divide: begin
          dividend_q   <= dividend_q << 1;
          remainder_q  <= remainder_d;
          quotient_q   <= quotient_d;
          steps_left_q <= steps_left_q - STEP_W'(1);
          if (steps_left_q == LAST_STEP) begin
            level_cap_o[level_q*W +: W] <= quotient_plus_half[QUOTIENT_W-1:1];
            level_q <= level_q + IDX_W'(1);
            state_q <= last_level ? Finish : Compare;
          end
        end
        Finish: begin
          state_q     <= Idle;
          busy_o      <= 1'b0;
          done_o      <= 1'b1;
          binding_o   <= best_q;
          mem_bound_o <= best_q != COMPUTE_BINDS;
          cap_o       <= (best_q == COMPUTE_BINDS) ? peak_q : level_cap_o[best_q*W +: W];
        end
        default: state_q <= Idle;
      endcase
    end
  end

`ifdef ROOFLINE_FORMAL
`include "roofline_counts_props.svh"
`endif
endmodule
`default_nettype wire
