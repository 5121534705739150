"""roofline_bench: what each bench drives and how it judges, independent of any simulator.

- `ports`: the one way a bench touches a design (`Ports`), and the errors a read can raise.
- `run`: a test's context (`Run`), its registry entry (`BenchTest`), running it to a verdict, and
  `replay`: judging a recorded run again from its tape.
- `tape`: what a bench read (a `Tape` per test, a `Reply` per run), and replaying it.
- `remote`: a bench here driving a design simulated elsewhere (`RemotePorts`), one command at a
  time to a puppet beside it, its answers held to the protocol.
- `trace`: a failing test replayed once more, keeping every value by clock cycle (for pictures).
- `counterexample`: a failed proof's trace (its Yosys witness) driven into the design and judged
  by the bench's rules (make sim REPLAY=).
- `stimulus`, `rates`, `batch`, `coverage`: seeded vectors; driving and judging rates; judging
  sweeps in batches with the vectorised judge; functional coverage.
- `attainable`, `hierarchy`, `intensity`, `pipe`, `counts`: one bench per top-level module, each with its TESTS.
- `pipe_reg`: the unit bench of roofline_pipe_reg, a building block: its cycle model, source, sink
  and checker.
- `benches`: every module's bench, `benches.TESTS[top]`, and the unit benches, `benches.UNIT_TESTS`.

No module here imports cocotb: the cocotb harness (roofline_cocotb) runs these benches under a
simulator, and the grader (roofline_course) runs them
in its own process against a puppet of the design's ports (`remote`).
"""
