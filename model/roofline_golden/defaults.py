"""The contract's defaults (spec sections 2 and 3), written here once and read by every part:
the model's formats, the contract table's parameter sets, the command lines and the Makefile
(which passes a value only when one is given)."""

INT_BITS = 24
FRAC_BITS = 16
LEVELS = 3
COUNT_BITS = 64
MUL_STAGES = 1  # roofline_hierarchy_pipe's multiplication stages (1 to 4)
