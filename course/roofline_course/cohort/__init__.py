"""A whole class: `make grade-all` and what it writes.

- `grade_all`: every entry graded, several at a time (or on Dask), into one table and one page.
- `table`: the class's rows, kept across runs, and scores.csv.
- `dashboard`: the class page (templates/), every number from the rows.
- `similarity`: which submissions look alike.
- `lateness`: days late, from the platform's metadata only.
- `calibration`: the class's one time limit, chosen once and recorded.
"""
