"""What grading reports, from one canonical result.

- `result`: the canonical result (result.json) and every file written from it.
- `terminal`: the table a person reads, and score.txt.
- `platforms`: JUnit XML, Gradescope's and PrairieLearn's results.
- `neutralise`: text students control, made harmless where it lands (terminal, CSV, XML, HTML, file names).
"""
