"""roofline_tb: the cocotb side of roofline-hw.

- `config`: what a bench run is (module, simulator, parameters, seed) and how to rerun it.
- `sources`: the RTL file list, with the drop-in rule applied.
- `runner`: builds and runs a bench on Icarus or Verilator through cocotb-test.
- `sim`: the `make sim` command line.
- `signals`, `scoreboard`, `vectors`: helpers the cocotb testbenches share.
"""
