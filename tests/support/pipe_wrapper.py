"""A roofline_hierarchy_pipe with the contract's ports around a body of a test's own: the planted
designs that wrap the reference pipe (renamed) to break one thing about it."""

from __future__ import annotations

HEADER = """module roofline_hierarchy_pipe #(
  parameter int INT_BITS = 24, parameter int FRAC_BITS = 16, parameter int LEVELS = 3, parameter int MUL_STAGES = 1
) (
  input  logic clk_i, rst_ni, in_valid_i, out_ready_i,
  output logic in_ready_o, out_valid_o,
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i,
  input  logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic [LEVELS*(INT_BITS+FRAC_BITS)-1:0] level_cap_o,
  output logic mem_bound_o,
  output logic [$clog2(LEVELS+1)-1:0] binding_o
);
"""


def pipe_wrapper(body: str) -> str:
    """The module's text: the contract's ports, then `body` (its lines indented as SystemVerilog reads)."""
    return HEADER + body + "endmodule\n"
