`default_nettype none
// The port properties every valid/ready pipeline of the project shares (roofline_pipe_reg,
// roofline_hierarchy_pipe), attached by its ports: an input pair the design receives on and an
// output pair it drives, with a fixed latency.
//
//   - Both pairs keep the rules of roofline_valid_ready (the output's asserted, the input's
//     assumed): a result offered is held until it is taken; none is offered in or just after a
//     reset.
//   - The readiness rule: an input is taken whenever the output is empty or being read
//     ((!out_valid || out_ready) -> in_ready), so a sink may wait for valid before raising ready.
//   - A scoreboard counts the inputs taken and the results delivered: no result without an input
//     in flight, and at most LATENCY in flight. It keeps the inputs in flight in a FIFO, by
//     sequence number; head_o is the oldest, the one the result offered must belong to (the
//     wrapper compares the two): in order, none lost, none repeated.
//   - SINK_WAIT > 0: the sink raises ready only while valid is high, and within SINK_WAIT cycles
//     of it. Then no input waits SINK_WAIT cycles or more, and no input in flight goes
//     LATENCY + SINK_WAIT cycles without a result delivered: the bounded liveness check, no deadlock.
//   - FULL_RATE: every input offered and the sink always ready. Then every input is taken, and a
//     result comes out on every clock from LATENCY cycles after the first input on.
module roofline_stream_props #(
  parameter int IN_W      = 1,
  parameter int OUT_W     = 1,
  parameter int LATENCY   = 1,
  parameter int SINK_WAIT = 0,
  parameter bit FULL_RATE = 1'b0,
  localparam int DEPTH_W  = LATENCY > 1 ? $clog2(LATENCY) : 1,   // the FIFO holds LATENCY inputs or more
  localparam int SEQ_W    = DEPTH_W + 1
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  input  logic                                 in_valid,
  input  logic                                 in_ready,
  input  logic [IN_W-1:0]                      in_data,
  input  logic                                 out_valid,
  input  logic                                 out_ready,
  input  logic [OUT_W-1:0]                     out_data,
  output logic [SEQ_W-1:0]                     f_in_o,      // inputs taken, mod 2^SEQ_W
  output logic [SEQ_W-1:0]                     f_out_o,     // results delivered, mod 2^SEQ_W
  output logic [(1 << DEPTH_W)-1:0][IN_W-1:0]  fifo_o,      // input number n at [n mod 2^DEPTH_W]
  output logic [IN_W-1:0]                      head_o       // the oldest input in flight
);
  logic past_valid = 1'b0;
  always_ff @(posedge clk_i) past_valid <= 1'b1;
  always_comb if (!past_valid) assume (!rst_ni);

  logic in_fire, out_fire;
  assign in_fire  = rst_ni && in_valid && in_ready;
  assign out_fire = rst_ni && out_valid && out_ready;

  logic [7:0] in_waited, out_waited;
  roofline_valid_ready #(.WIDTH(IN_W), .DUT_IS_SOURCE(1'b0), .MAX_WAIT(SINK_WAIT)) u_in_rules (
    .clk_i, .rst_ni, .valid(in_valid), .ready(in_ready), .data(in_data), .waited_o(in_waited)
  );
  roofline_valid_ready #(.WIDTH(OUT_W), .DUT_IS_SOURCE(1'b1), .READY_WAITS_FOR_VALID(SINK_WAIT > 0),
                         .MAX_WAIT(SINK_WAIT)) u_out_rules (
    .clk_i, .rst_ni, .valid(out_valid), .ready(out_ready), .data(out_data), .waited_o(out_waited)
  );

  always_comb if (rst_ni) assert (!(!out_valid || out_ready) || in_ready);   // the readiness rule

  logic [SEQ_W-1:0] in_flight;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_in_o  <= '0;
      f_out_o <= '0;
    end else begin
      if (in_fire) f_in_o <= f_in_o + 1'b1;
      if (out_fire) f_out_o <= f_out_o + 1'b1;
    end
  end
  assign in_flight = f_in_o - f_out_o;
  always_comb begin
    if (rst_ni) begin
      assert (in_flight <= SEQ_W'(LATENCY));
      if (out_valid) assert (in_flight != '0);   // no result without an input
      if (LATENCY == 1) assert (in_flight == SEQ_W'(out_valid));  // one cycle: what is in flight is offered
    end
  end

  always_ff @(posedge clk_i) if (in_fire) fifo_o[f_in_o[DEPTH_W-1:0]] <= in_data;
  assign head_o = fifo_o[f_out_o[DEPTH_W-1:0]];

  if (SINK_WAIT > 0) begin : g_sink_waits
    // Cycles with an input in flight and no result delivered.
    logic [7:0] quiet;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) quiet <= '0;
      else if (in_flight == '0 || out_fire) quiet <= '0;
      else if (quiet != '1) quiet <= quiet + 1'b1;
    end
    always_comb if (rst_ni) assert (quiet < 8'(LATENCY + SINK_WAIT));
  end

  if (FULL_RATE) begin : g_full_rate
    logic [7:0] cycle;   // cycles since the reset ended, saturating
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) cycle <= '0;
      else if (cycle != '1) cycle <= cycle + 1'b1;
    end
    always_comb begin
      assume (out_ready);
      if (rst_ni && cycle != '0) assume (in_valid);
      if (rst_ni) begin
        assert (in_ready);
        assert (out_valid == (cycle > 8'(LATENCY)));
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (past_valid && rst_ni) begin
      cover (in_fire && !out_ready && !out_valid);                              // an accept while out_ready is low
      cover (out_valid && !out_ready && in_valid && in_flight == SEQ_W'(LATENCY));  // a full pipe stalled
      cover ($past(out_fire) && out_fire);                                      // back-to-back results
      cover ($past(out_valid && !out_ready) && out_fire);                       // a stall released
    end
    if (past_valid) cover (!rst_ni && $past(rst_ni && in_flight != '0 && out_valid));  // a reset with results in flight
  end
  if (LATENCY > 1) begin : g_partly_full
    always_ff @(posedge clk_i) begin
      if (rst_ni) cover (out_valid && !out_ready && in_valid && in_flight >= 2 && in_flight < SEQ_W'(LATENCY));  // a partly full pipe stalled
    end
  end
endmodule
`default_nettype wire
