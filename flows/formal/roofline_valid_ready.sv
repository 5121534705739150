`default_nettype none
// The rules of one valid/ready port pair, written once and bound to every such pair of a design
// (after ZipCPU's faxis_master/faxis_slave, github.com/ZipCPU/wb2axip, bench/formal/).
//
// Two parties share the pair: the source drives valid and data, the receiver drives ready. A
// beat moves on a clock edge where valid and ready are both high. DUT_IS_SOURCE says which side
// the design under test is on: its party's rules are asserted (the design must keep them) and
// the other party's are assumed (the environment keeps them). One module, so the rules a design
// must keep at its output are exactly those it may rely on at its input.
//
// The source's rules:
//   - valid is low while the (asynchronous, active-low) reset is asserted and in the first
//     cycle after it;
//   - a beat offered and not taken stays: valid stays high and data does not change.
// The receiver's rules, each optional:
//   - READY_WAITS_FOR_VALID: ready is high only while valid is (a sink that waits for valid
//     before raising ready: legal, and the one that deadlocks a design whose ready waits for
//     the sink's);
//   - MAX_WAIT > 0: a beat is taken within MAX_WAIT cycles of being offered (valid high and
//     ready low for at most MAX_WAIT - 1 cycles in a row). As an assertion on a design that
//     receives, this is the bounded liveness check: the design never leaves a beat waiting.
// waited_o counts the cycles the current beat has waited (valid high, ready low).
module roofline_valid_ready #(
  parameter int WIDTH                 = 1,
  parameter bit DUT_IS_SOURCE         = 1'b1,
  parameter bit READY_WAITS_FOR_VALID = 1'b0,
  parameter int MAX_WAIT              = 0,
  parameter int WAIT_W                = 8
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              valid,
  input  logic              ready,
  input  logic [WIDTH-1:0]  data,
  output logic [WAIT_W-1:0] waited_o
);
  logic past_valid = 1'b0;
  logic past_reset;      // the reset was asserted in the previous cycle
  logic past_stalled;    // a beat was offered and not taken in the previous cycle
  logic [WIDTH-1:0] past_data;
  always_ff @(posedge clk_i) begin
    past_valid   <= 1'b1;
    past_reset   <= !rst_ni;
    past_stalled <= rst_ni && valid && !ready;
    past_data    <= data;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) waited_o <= '0;
    else if (!valid || ready) waited_o <= '0;
    else if (waited_o != '1) waited_o <= waited_o + 1'b1;
  end

  logic source_quiet_in_reset, source_holds, receiver_waits_for_valid, receiver_takes_in_time;
  assign source_quiet_in_reset    = !(!rst_ni || !past_valid || past_reset) || !valid;
  assign source_holds             = !(past_valid && rst_ni && past_stalled) || (valid && data == past_data);
  assign receiver_waits_for_valid = !READY_WAITS_FOR_VALID || !rst_ni || valid || !ready;
  assign receiver_takes_in_time   = MAX_WAIT == 0 || waited_o < WAIT_W'(MAX_WAIT);

  if (DUT_IS_SOURCE) begin : g_dut_sources
    always_comb begin
      assert (source_quiet_in_reset);
      assert (source_holds);
      assume (receiver_waits_for_valid);
      assume (receiver_takes_in_time);
    end
  end else begin : g_dut_receives
    always_comb begin
      assume (source_quiet_in_reset);
      assume (source_holds);
      assert (receiver_waits_for_valid);
      assert (receiver_takes_in_time);
    end
  end
endmodule
`default_nettype wire
