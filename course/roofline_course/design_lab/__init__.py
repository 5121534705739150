"""Grading a design lab (labs 1 to 5): the student's RTL simulated in sandboxes, judged here.

- `grade`: one submission's grading: the precheck, then each batch of groups in a fresh sandbox.
- `schedule`: which groups share a simulation, and the order they run in.
- `progress`: what a grading prints as it runs: each group's marks, and the answer so far before a slow group.
- `sandbox_job`: what runs inside the sandbox (`python -m roofline_course.design_lab.sandbox_job`).
- `judge`: a group's score from the tapes the sandbox sent back, replayed against the golden model.
- `scoring`: how tests become marks (beyond chance; a broken event costs its test), and the handouts' words for it.
- `synthesis`: a synthesis group's score from the tools' figures.
- `hints`: a hint for each kind of failure.
- `pictures`, `waves`, `roofs`: where a failing test went wrong, drawn from a traced replay.
"""
