"""The bulk pipeline's shape (roofline_bulk.pipeline): how many helpers a machine gets, and that the
testbench's file slots hold every batch in flight."""

from __future__ import annotations

import pytest
from bulk_configs import config

from roofline_bulk.pipeline import AHEAD, SLOTS, batch_paths, helper_count
from roofline_bulk.stimulus import BLOCK


@pytest.mark.parametrize(("cpus", "helpers"), [(1, 1), (2, 1), (3, 2), (4, 2), (64, 2)])
def test_the_simulator_keeps_a_core_and_the_helpers_take_the_rest_up_to_the_batches_made_ahead(cpus: int,
                                                                                                helpers: int) -> None:
    assert helper_count(cpus) == helpers


def test_this_machine_gets_at_least_one_helper() -> None:
    assert 1 <= helper_count() <= AHEAD


def test_every_batch_in_flight_has_files_of_its_own() -> None:
    # In flight at once: the batch simulating, the one before it (being checked), and AHEAD made ahead.
    cfg = config(count=20 * BLOCK)
    for simulating in range(1, 12):
        in_flight = range(simulating - 1, simulating + AHEAD + 1)
        paths = [batch_paths(cfg, batch) for batch in in_flight]
        assert len({inputs for inputs, _ in paths}) == len(in_flight) <= SLOTS
        assert len({outputs for _, outputs in paths}) == len(in_flight)
