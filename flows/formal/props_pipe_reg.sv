`default_nettype none
// Properties of roofline_pipe_reg, attached by its ports: they check any implementation of its
// contract. Every valid, ready and data pattern is free but for a reset in the first cycle and
// the rules of a legal source at the input.
//
// roofline_stream_props gives the handshake (the valid/ready rules on both pairs, the readiness
// rule, the scoreboard; with PROP_SINK_WAITS and PROP_FULL_RATE the bounded liveness and the
// full-rate checks); the register has a latency of one cycle. Here: the beat offered is the
// oldest one taken and not yet delivered, unchanged: none lost, repeated or reordered.
module props_pipe_reg #(
  parameter int WIDTH = 1
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             valid_i,
  input logic [WIDTH-1:0] data_i,
  input logic             ready_i
);
`ifdef PROP_SINK_WAITS
  localparam int SINK_WAIT = 3;
`else
  localparam int SINK_WAIT = 0;
`endif
`ifdef PROP_FULL_RATE
  localparam bit FULL_RATE = 1'b1;
`else
  localparam bit FULL_RATE = 1'b0;
`endif

  logic             ready_o, valid_o;
  logic [WIDTH-1:0] data_o;
  roofline_pipe_reg #(.WIDTH(WIDTH)) dut (
    .clk_i, .rst_ni, .valid_i, .ready_o, .data_i, .valid_o, .ready_i, .data_o
  );

  logic [1:0]            unused_in, unused_out;
  logic [1:0][WIDTH-1:0] unused_fifo;
  logic [WIDTH-1:0]      f_head;
  roofline_stream_props #(
    .IN_W(WIDTH), .OUT_W(WIDTH), .LATENCY(1), .SINK_WAIT(SINK_WAIT), .FULL_RATE(FULL_RATE)
  ) u_stream (
    .clk_i, .rst_ni, .in_valid(valid_i), .in_ready(ready_o), .in_data(data_i),
    .out_valid(valid_o), .out_ready(ready_i), .out_data(data_o),
    .f_in_o(unused_in), .f_out_o(unused_out), .fifo_o(unused_fifo), .head_o(f_head)
  );

  always_comb if (rst_ni && valid_o) assert (data_o == f_head);
endmodule
`default_nettype wire
