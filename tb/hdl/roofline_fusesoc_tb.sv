`timescale 1ns/1ps
`default_nettype none
// The FuseSoC core's simulation target: roofline_hierarchy at UQ24.16 with 3 levels, checked
// against the golden model's answers in roofline_cases.svh (written by
// `python -m roofline_flows.fusesoc`: every case of cases.toml that fits, and seeded random
// vectors). Plain SystemVerilog, so any simulator FuseSoC drives can run it. Prints PASS, or
// each mismatch and then FAIL through $fatal.
module roofline_fusesoc_tb;
  localparam int INT_BITS  = 24;
  localparam int FRAC_BITS = 16;
  localparam int LEVELS    = 3;
  localparam int W         = INT_BITS + FRAC_BITS;
  localparam int IDX_W     = $clog2(LEVELS + 1);

  logic [W-1:0]        peak;
  logic [LEVELS*W-1:0] bw;
  logic [LEVELS*W-1:0] ai;
  logic [W-1:0]        cap;
  logic [LEVELS*W-1:0] level_cap;
  logic                mem_bound;
  logic [IDX_W-1:0]    binding;
  int                  checked = 0;
  int                  failed = 0;

  roofline_hierarchy #(
    .INT_BITS (INT_BITS),
    .FRAC_BITS(FRAC_BITS),
    .LEVELS   (LEVELS)
  ) dut (
    .peak_i     (peak),
    .bw_i       (bw),
    .ai_i       (ai),
    .cap_o      (cap),
    .level_cap_o(level_cap),
    .mem_bound_o(mem_bound),
    .binding_o  (binding)
  );

  task automatic check(input string name, input logic [W-1:0] peak_in, input logic [LEVELS*W-1:0] bw_in,
                       input logic [LEVELS*W-1:0] ai_in, input logic [W-1:0] want_cap,
                       input logic [LEVELS*W-1:0] want_level_cap, input logic want_mem_bound,
                       input int want_binding);
    peak = peak_in;
    bw   = bw_in;
    ai   = ai_in;
    #1;
    checked++;
    if (cap !== want_cap || level_cap !== want_level_cap || mem_bound !== want_mem_bound
        || binding !== IDX_W'(want_binding)) begin
      failed++;
      $display("MISMATCH %s: peak_i=%h bw_i=%h ai_i=%h", name, peak_in, bw_in, ai_in);
      $display("  cap_o=%h (expected %h) level_cap_o=%h (expected %h) mem_bound_o=%b (expected %b) binding_o=%0d (expected %0d)",
               cap, want_cap, level_cap, want_level_cap, mem_bound, want_mem_bound, binding, want_binding);
    end
  endtask

  initial begin
`include "roofline_cases.svh"
    if (failed != 0 || checked == 0) $fatal(1, "FAIL: %0d of %0d vectors mismatched", failed, checked);
    $display("PASS: %0d vectors checked against the golden model", checked);
    $finish;
  end
endmodule

`default_nettype wire
