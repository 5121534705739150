"""The course labs as the grader reads them (labs/labN/).

- `definitions`: a lab's lab.toml and hidden groups: its module, groups, weights, limits.
- `designs`: the designs a testbench lab serves (models, examples, RTL mutants), by name.
"""
