#!/usr/bin/env bash
# Gradescope autograder image setup (runs once, as root, when the autograder is built).
# Upload a zip of this repository with its hidden.toml files, with this file and run_autograder
# at the top of the zip (copy them there). Choose a base image with Python >= 3.11 (Ubuntu 24.04).
set -euo pipefail
ROOT=${AUTOGRADER_ROOT:-/autograder}
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iverilog g++ perl make python3-venv \
  yosys nextpnr-ice40 fpga-icestorm bubblewrap util-linux
make -C "$ROOT/source" .venv/.installed
