`timescale 1ns / 1ps
// The bulk path's ceiling on Icarus for `make benchmark`: the same streaming testbench
// (tb/hdl/roofline_bulk_tb.sv, its $fread and $fwrite) run through one input file by plain
// SystemVerilog, with no cocotb and no checking. +roofline_dir=<folder> holds bulk_in_0.bin;
// +beats=<n> is its beat count. The benchmark checks the output file's size.
module roofline_fread_top;
  parameter int INT_BITS  = 24;
  parameter int FRAC_BITS = 16;

  logic        rst_n = 1'b0, start = 1'b0;
  logic [31:0] beats;
  logic        busy, done, unknown;
  logic [31:0] unknown_beat;
  logic [15:0] unknown_lane;
  logic [7:0]  unknown_field;

  roofline_bulk_tb #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(1), .HIERARCHY(0), .LANES(1)) u_tb (
    .rst_ni(rst_n), .start_i(start), .beats_i(beats), .slot_i(2'd0), .busy_o(busy), .done_o(done),
    .unknown_o(unknown), .unknown_beat_o(unknown_beat), .unknown_lane_o(unknown_lane), .unknown_field_o(unknown_field)
  );

  initial begin
    if (!$value$plusargs("beats=%d", beats)) $fatal(1, "roofline_fread_top: give +beats=<n>");
    #22 rst_n = 1'b1;
    @(negedge u_tb.clk) start = 1'b1;
    @(negedge u_tb.clk) start = 1'b0;
    @(posedge done);
    $finish;
  end
endmodule
