`default_nettype none
// roofline_hierarchy as a pipeline with valid/ready handshakes on both sides.
//
// Stages, each a register:
//   1. the inputs;
//   2. each level's full-precision product ai * bw, in MUL_STAGES stages (1 to 4): ai's
//      2^(MUL_STAGES-1) slices each times bw, then a tree of sums, one level per stage;
//   3. each level's verdict and rounded cap (roofline_round_cap);
//   4. the binding level, its cap and every output (the same running minimum as the
//      combinational module: a memory-bound level takes the lead only when strictly lower).
// Latency from an accepted input to its out_valid_o: 3 + MUL_STAGES cycles (4 by default).
// Throughput: one result per clock while out_ready_i is high. The pipeline advances as a
// whole when its last stage is empty or being read (in_ready_o = !out_valid_o || out_ready_i),
// so back-pressure holds every result in place: nothing is lost or duplicated.
module roofline_hierarchy_pipe #(
  parameter int INT_BITS   = 24,
  parameter int FRAC_BITS  = 16,
  parameter int LEVELS     = 3,
  parameter int MUL_STAGES = 1   // 1 to 4 register stages for the multiplication
) (
  input  logic                                   clk_i,
  input  logic                                   rst_ni,
  input  logic                                   in_valid_i,
  output logic                                   in_ready_o,
  input  logic [INT_BITS+FRAC_BITS-1:0]          peak_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] ai_i,
  output logic                                   out_valid_o,
  input  logic                                   out_ready_i,
  output logic [INT_BITS+FRAC_BITS-1:0]          cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic                                   mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0]            binding_o
);
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int PRODUCT_W = 2 * W;
  localparam int IDX_W     = $clog2(LEVELS + 1);
  localparam int STAGES    = 3 + MUL_STAGES;

  roofline_param_check #(
    .INT_BITS  (INT_BITS),
    .FRAC_BITS (FRAC_BITS),
    .LEVELS    (LEVELS),
    .MUL_STAGES(MUL_STAGES)
  ) u_param_check ();

  // One enable for every stage: the pipeline moves when its output can.
  logic              advance;
  logic [STAGES-1:0] valid_q;
  assign advance     = !valid_q[STAGES-1] || out_ready_i;
  assign in_ready_o  = advance;
  assign out_valid_o = valid_q[STAGES-1];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else if (advance) begin
      valid_q <= {valid_q[STAGES-2:0], in_valid_i};
    end
  end

  // Stage 1: the inputs.
  logic [W-1:0]        s1_peak;
  logic [LEVELS*W-1:0] s1_bw, s1_ai;
  always_ff @(posedge clk_i) begin
    if (advance) begin
      s1_peak <= peak_i;
      s1_bw   <= bw_i;
      s1_ai   <= ai_i;
    end
  end

  // Stages 2 .. 1 + MUL_STAGES: the products. ai splits into CHUNKS = 2^(MUL_STAGES-1) slices of
  // CHUNK_W bits. The first multiplication stage holds each slice times bw; each further stage
  // adds neighbouring pairs, the upper one shifted, so the last holds one node: ai * bw. Node
  // (t, l, k) of the tree is level l's ai bits [k * 2^t * CHUNK_W +: 2^t * CHUNK_W] times its bw.
  localparam int CHUNKS  = 1 << (MUL_STAGES - 1);
  localparam int CHUNK_W = (W + CHUNKS - 1) / CHUNKS;
  localparam int AI_PAD_W = CHUNKS * CHUNK_W;
  localparam int NODE_W  = AI_PAD_W + W;        // wide enough for any node
  localparam int NODES   = MUL_STAGES * LEVELS * CHUNKS;

  function automatic int node(input int t, input int l, input int k);  // its first bit in mul_d/mul_q
    node = ((t * LEVELS + l) * CHUNKS + k) * NODE_W;
  endfunction

  logic [NODES*NODE_W-1:0]  mul_d, mul_q;
  logic [MUL_STAGES*W-1:0]  mul_peak_d, mul_peak_q;

  always_comb begin
    logic [AI_PAD_W-1:0] ai_pad;
    mul_d = '0;
    mul_peak_d = '0;
    mul_peak_d[0 +: W] = s1_peak;
    for (int t = 1; t < MUL_STAGES; t++) mul_peak_d[t*W +: W] = mul_peak_q[(t-1)*W +: W];
    for (int l = 0; l < LEVELS; l++) begin
      ai_pad = AI_PAD_W'(s1_ai[l*W +: W]);
      for (int k = 0; k < CHUNKS; k++) begin
        mul_d[node(0, l, k) +: NODE_W] = NODE_W'(ai_pad[k*CHUNK_W +: CHUNK_W]) * NODE_W'(s1_bw[l*W +: W]);
      end
      for (int t = 1; t < MUL_STAGES; t++) begin
        for (int k = 0; k < CHUNKS / 2; k++) begin
          if (k < (CHUNKS >> t)) begin  // level t has CHUNKS / 2^t nodes
            mul_d[node(t, l, k) +: NODE_W] = mul_q[node(t - 1, l, 2 * k) +: NODE_W]
                                           + (mul_q[node(t - 1, l, 2 * k + 1) +: NODE_W] << (CHUNK_W << (t - 1)));
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (advance) mul_q <= mul_d;
  end
  always_ff @(posedge clk_i) begin
    if (advance) mul_peak_q <= mul_peak_d;
  end

  // Stage 1 + MUL_STAGES: the products, and the peak beside them.
  logic [W-1:0]                s2_peak;
  logic [LEVELS*PRODUCT_W-1:0] s2_product;
  always_comb begin
    s2_peak = mul_peak_q[(MUL_STAGES-1)*W +: W];
    for (int l = 0; l < LEVELS; l++) begin
      s2_product[l*PRODUCT_W +: PRODUCT_W] = PRODUCT_W'(mul_q[node(MUL_STAGES - 1, l, 0) +: NODE_W]);
    end
  end

  // Stage 3: each level's verdict and rounded cap.
  logic [LEVELS-1:0]           level_mem_bound;
  logic [LEVELS*W-1:0]         level_cap;
  logic [W-1:0]                s3_peak;
  logic [LEVELS*PRODUCT_W-1:0] s3_product;
  logic [LEVELS-1:0]           s3_mem_bound;
  logic [LEVELS*W-1:0]         s3_level_cap;

  for (genvar l = 0; l < LEVELS; l++) begin : gen_level
    roofline_round_cap #(
      .INT_BITS (INT_BITS),
      .FRAC_BITS(FRAC_BITS)
    ) u_round_cap (
      .peak_i     (s2_peak),
      .product_i  (s2_product[l*PRODUCT_W +: PRODUCT_W]),
      .mem_bound_o(level_mem_bound[l]),
      .cap_o      (level_cap[l*W +: W])
    );
  end

  always_ff @(posedge clk_i) begin
    if (advance) begin
      s3_peak      <= s2_peak;
      s3_product   <= s2_product;
      s3_mem_bound <= level_mem_bound;
      s3_level_cap <= level_cap;
    end
  end

  // Stage 4: the binding level (the lowest memory-bound product, first index on a tie).
  logic [W-1:0]     best_cap;
  logic [IDX_W-1:0] best_index;

  roofline_binding #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS),
    .LEVELS   (LEVELS)
  ) u_binding (
    .peak_i     (s3_peak),
    .product_i  (s3_product),
    .mem_bound_i(s3_mem_bound),
    .level_cap_i(s3_level_cap),
    .cap_o      (best_cap),
    .binding_o  (best_index)
  );

  always_ff @(posedge clk_i) begin
    if (advance) begin
      cap_o       <= best_cap;
      level_cap_o <= s3_level_cap;
      mem_bound_o <= |s3_mem_bound;
      binding_o   <= best_index;
    end
  end

endmodule
`default_nettype wire
