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
// Sequential: one level after another, with one W x COUNT_BITS multiplier shared by every
// product. A level takes two cycles: ops * bw_l, then peak * bytes_l and the verdict. A
// memory-bound level then divides 2 * ops * bw_l by bytes_l, one quotient bit per clock, W + 1
// bits: its quotient is below 2 * peak < 2^(W+1), so the dividend's top COUNT_BITS bits are
// below bytes_l and load the remainder at once. The divider's first two cycles put the shared
// multiplier to the binding comparison, bw_l * best_bytes and then best_bw * bytes_l.
//
// Handshake as roofline_intensity: start_i is sampled while busy_o is low; done_o pulses for
// one cycle with every output valid, and every output holds until the next done_o.
// Latency, from the cycle in which start_i is sampled to the cycle in which done_o is high:
//   1 + 2 * LEVELS + (W + 1) * (memory-bound levels) cycles, at most LEVELS * (W + 3) + 1.
// busy_o is low in the done_o cycle, so placements can run back to back.
module roofline_counts #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int COUNT_BITS = 64
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,
  input  logic                                   start_i,
  input  logic [INT_BITS+FRAC_BITS-1:0]          peak_i,   // GFLOP/s
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,     // GB/s per level
  input  logic [COUNT_BITS-1:0]                  ops_i,    // FLOP
  input  logic [LEVELS*COUNT_BITS-1:0]           bytes_i,  // B per level
  output logic                                   busy_o,
  output logic                                   done_o,
  output logic [INT_BITS+FRAC_BITS-1:0]          cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic                                   mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0]            binding_o
);
  localparam int W          = INT_BITS + FRAC_BITS;
  localparam int C          = COUNT_BITS;
  localparam int IDX_W      = $clog2(LEVELS + 1);
  localparam int PRODUCT_W  = C + W;          // every product: a W-bit rate times a C-bit count
  localparam int QUOTIENT_W = W + 1;          // 2 * ops * bw / bytes of a memory-bound level
  localparam int STEP_W     = $clog2(QUOTIENT_W + 1);
  localparam logic [IDX_W-1:0]  COMPUTE_BINDS = IDX_W'(LEVELS);
  localparam logic [IDX_W-1:0]  LAST_LEVEL    = IDX_W'(LEVELS - 1);
  localparam logic [STEP_W-1:0] FIRST_STEP    = STEP_W'(QUOTIENT_W);
  localparam logic [STEP_W-1:0] SECOND_STEP   = STEP_W'(QUOTIENT_W - 1);
  localparam logic [STEP_W-1:0] LAST_STEP     = STEP_W'(1);

  roofline_param_check #(
    .INT_BITS  (INT_BITS),
    .FRAC_BITS (FRAC_BITS),
    .LEVELS    (LEVELS),
    .COUNT_BITS(COUNT_BITS)
  ) u_param_check ();

  // MemorySide: ops * bw_l. ComputeSide: peak * bytes_l and the verdict. Divide: the quotient.
  typedef enum logic [1:0] {Idle, MemorySide, ComputeSide, Divide} state_e;
  state_e state_q, state_d;

  // The placement's operands, held while busy.
  logic [W-1:0]        peak_q, peak_d;
  logic [LEVELS*W-1:0] bw_q, bw_d;
  logic [C-1:0]        ops_q, ops_d;
  logic [LEVELS*C-1:0] bytes_q, bytes_d;
  // The level being placed, and the binding level so far (COMPUTE_BINDS for none) with its operands.
  logic [IDX_W-1:0]    level_q, level_d;
  logic [IDX_W-1:0]    best_q, best_d;
  logic [W-1:0]        best_bw_q, best_bw_d;
  logic [C-1:0]        best_bytes_q, best_bytes_d;
  // The last product, the caps found so far, and the divider.
  logic [PRODUCT_W-1:0]  product_q, product_d;
  logic [LEVELS*W-1:0]   level_cap_q, level_cap_d;
  logic [QUOTIENT_W-1:0] dividend_q, dividend_d;   // the dividend bits still to bring down, MSB first
  logic [C-1:0]          remainder_q, remainder_d;
  // The quotient so far: W bits, since the last step's bit is used at once and never stored.
  logic [QUOTIENT_W-2:0] quotient_q, quotient_d;
  logic [STEP_W-1:0]     steps_left_q, steps_left_d;
  // The outputs.
  logic                busy_d, done_d, mem_bound_d;
  logic [W-1:0]        cap_d;
  logic [LEVELS*W-1:0] level_cap_out_d;
  logic [IDX_W-1:0]    binding_d;

  // The current level's operands, from tables of 2^IDX_W entries indexed by level_q: every
  // select in range.
  localparam int TABLE = 1 << IDX_W;
  logic [TABLE*W-1:0] bw_table;
  logic [TABLE*C-1:0] bytes_table;
  assign bw_table    = (TABLE*W)'(bw_q);
  assign bytes_table = (TABLE*C)'(bytes_q);
  logic [W-1:0] bw_cur;
  logic [C-1:0] bytes_cur;
  assign bw_cur    = bw_table[level_q*W +: W];
  assign bytes_cur = bytes_table[level_q*C +: C];

  // The one multiplier. Its operands, by state: ops * bw_l, peak * bytes_l, then (the divider's
  // first two steps) bw_l * best_bytes and best_bw * bytes_l.
  logic [W-1:0]         mul_rate;
  logic [C-1:0]         mul_count;
  logic [PRODUCT_W-1:0] product;
  logic                 lead_first;
  assign lead_first = steps_left_q == FIRST_STEP;
  assign mul_rate   = (state_q == ComputeSide) ? peak_q
                    : (state_q == Divide && !lead_first) ? best_bw_q : bw_cur;
  assign mul_count  = (state_q == ComputeSide) ? bytes_cur
                    : (state_q == Divide) ? (lead_first ? best_bytes_q : bytes_cur) : ops_q;
  assign product    = PRODUCT_W'(mul_rate) * PRODUCT_W'(mul_count);

  // In ComputeSide, product_q is ops * bw_l and product is peak * bytes_l: the verdict.
  logic mem_bound_cur;
  assign mem_bound_cur = (bytes_cur != '0) && (product_q < product);
  // In the divider's second step, product_q is bw_l * best_bytes and product is best_bw * bytes_l:
  // ops * bw_l / bytes_l < ops * best_bw / best_bytes with ops > 0 cancelled. With ops == 0 every
  // memory-bound level's cap is 0, a tie the lowest index wins.
  logic takes_lead;
  assign takes_lead = (best_q == COMPUTE_BINDS) || ((ops_q != '0) && (product_q < product));

  // One restoring step of 2 * ops * bw_l / bytes_l. The quotient has QUOTIENT_W bits; the register
  // holds the W bits before the last step, so the step shifts a constant zero out (carry_out_o).
  logic [C-1:0]          step_remainder;
  logic [QUOTIENT_W-1:0] step_quotient;
  logic                  quotient_carry;
  roofline_div_step #(
    .WIDTH     (C),
    .QUOTIENT_W(QUOTIENT_W)
  ) u_step (
    .remainder_i(remainder_q),
    .next_bit_i (dividend_q[QUOTIENT_W-1]),
    .divisor_i  (bytes_cur),
    .quotient_i ({1'b0, quotient_q}),
    .remainder_o(step_remainder),
    .quotient_o (step_quotient),
    .carry_out_o(quotient_carry)
  );
  logic [QUOTIENT_W-1:0] quotient_plus_half;
  logic [W-1:0]          rounded_cap;   // round(quotient / 2), ties up
  logic                  unused_bits;
  assign quotient_plus_half = step_quotient + QUOTIENT_W'(1);
  assign rounded_cap        = quotient_plus_half[QUOTIENT_W-1:1];
  assign unused_bits        = quotient_carry ^ quotient_plus_half[0];

  // The dividend 2 * ops * bw_l (product_q in ComputeSide): its top C bits are the first
  // remainder, the low W + 1 bits are brought down.
  logic [C-1:0]          dividend_top;
  logic [QUOTIENT_W-1:0] dividend_low;
  assign dividend_top = product_q[PRODUCT_W-1 -: C];
  assign dividend_low = {product_q[W-1:0], 1'b0};

  // A level is finished in ComputeSide when it is compute-bound, and in the divider's last step.
  logic         level_done;
  logic [W-1:0] this_cap;
  assign level_done = (state_q == ComputeSide && !mem_bound_cur) || (state_q == Divide && steps_left_q == LAST_STEP);
  assign this_cap   = (state_q == Divide) ? rounded_cap : peak_q;

  // Each level's cap, with the one this cycle finishes, and the binding level's (the peak when
  // compute binds).
  logic [LEVELS*W-1:0] caps_now;
  logic [TABLE*W-1:0]  caps_or_peak;
  logic [W-1:0]        best_cap;
  for (genvar l = 0; l < LEVELS; l++) begin : gen_cap
    assign caps_now[l*W +: W] = (level_done && level_q == IDX_W'(l)) ? this_cap : level_cap_q[l*W +: W];
  end
  assign caps_or_peak = (TABLE*W)'({peak_q, caps_now});
  assign best_cap     = caps_or_peak[best_q*W +: W];

  always_comb begin
    state_d         = state_q;
    peak_d          = peak_q;
    bw_d            = bw_q;
    ops_d           = ops_q;
    bytes_d         = bytes_q;
    level_d         = level_q;
    best_d          = best_q;
    best_bw_d       = best_bw_q;
    best_bytes_d    = best_bytes_q;
    product_d       = product_q;
    level_cap_d     = caps_now;
    dividend_d      = dividend_q;
    remainder_d     = remainder_q;
    quotient_d      = quotient_q;
    steps_left_d    = steps_left_q;
    busy_d          = busy_o;
    done_d          = 1'b0;
    cap_d           = cap_o;
    level_cap_out_d = level_cap_o;
    mem_bound_d     = mem_bound_o;
    binding_d       = binding_o;
    case (state_q)
      Idle: begin
        if (start_i) begin
          state_d = MemorySide;
          busy_d  = 1'b1;
          peak_d  = peak_i;
          bw_d    = bw_i;
          ops_d   = ops_i;
          bytes_d = bytes_i;
          level_d = '0;
          best_d  = COMPUTE_BINDS;
        end
      end
      MemorySide: begin
        product_d = product;
        state_d   = ComputeSide;
      end
      ComputeSide: begin
        if (mem_bound_cur) begin
          state_d      = Divide;
          dividend_d   = dividend_low;
          remainder_d  = dividend_top;
          quotient_d   = '0;
          steps_left_d = FIRST_STEP;
        end
      end
      Divide: begin
        dividend_d   = dividend_q << 1;
        remainder_d  = step_remainder;
        quotient_d   = step_quotient[QUOTIENT_W-2:0];  // the last step's top bit is read from step_quotient
        steps_left_d = steps_left_q - STEP_W'(1);
        if (lead_first) product_d = product;
        if (steps_left_q == SECOND_STEP && takes_lead) begin
          best_d       = level_q;
          best_bw_d    = bw_cur;
          best_bytes_d = bytes_cur;
        end
      end
      default: state_d = Idle;
    endcase
    if (level_done) begin
      if (level_q == LAST_LEVEL) begin
        state_d         = Idle;
        busy_d          = 1'b0;
        done_d          = 1'b1;
        cap_d           = best_cap;
        level_cap_out_d = caps_now;
        mem_bound_d     = best_q != COMPUTE_BINDS;
        binding_d       = best_q;
      end else begin
        state_d = MemorySide;
        level_d = level_q + IDX_W'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q      <= Idle;
      peak_q       <= '0;
      bw_q         <= '0;
      ops_q        <= '0;
      bytes_q      <= '0;
      level_q      <= '0;
      best_q       <= COMPUTE_BINDS;
      best_bw_q    <= '0;
      best_bytes_q <= '0;
      product_q    <= '0;
      level_cap_q  <= '0;
      dividend_q   <= '0;
      remainder_q  <= '0;
      quotient_q   <= '0;
      steps_left_q <= '0;
      busy_o       <= 1'b0;
      done_o       <= 1'b0;
      cap_o        <= '0;
      level_cap_o  <= '0;
      mem_bound_o  <= 1'b0;
      binding_o    <= '0;
    end else begin
      state_q      <= state_d;
      peak_q       <= peak_d;
      bw_q         <= bw_d;
      ops_q        <= ops_d;
      bytes_q      <= bytes_d;
      level_q      <= level_d;
      best_q       <= best_d;
      best_bw_q    <= best_bw_d;
      best_bytes_q <= best_bytes_d;
      product_q    <= product_d;
      level_cap_q  <= level_cap_d;
      dividend_q   <= dividend_d;
      remainder_q  <= remainder_d;
      quotient_q   <= quotient_d;
      steps_left_q <= steps_left_d;
      busy_o       <= busy_d;
      done_o       <= done_d;
      cap_o        <= cap_d;
      level_cap_o  <= level_cap_out_d;
      mem_bound_o  <= mem_bound_d;
      binding_o    <= binding_d;
    end
  end
endmodule
`default_nettype wire
