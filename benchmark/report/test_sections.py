#!/usr/bin/env python3
"""Tests for contention_report.sections: markdown sections built from entries."""

import json
import tempfile
import unittest
from pathlib import Path

from contention_report.results import Cell, load_entries
from contention_report.groups import build_groups
from contention_report.sections import (anchors_section, best_section, failures_section, placement_section,
                                        release_section)
from synthetic_results import ERROR_MESSAGE, ERROR_NAME, full_input


class Sections(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.entries, _ = load_entries(full_input()["benchmarks"])

    def test_anchors_compare_with_this_run(self):
        anchors = [{"quantity": "dependent atomic", "anchor": 60, "unit": "ns",
                    "benchmark": "machine/test:dependent_atomic/place:device",
                    "counter": "ns_per_op", "note": "why it differs"},
                   {"quantity": "absent", "anchor": 1.0, "unit": "us",
                    "benchmark": "barrier/impl:none/mode:block/scope:device/place:managed/cpu:0/gpu:1x1",
                    "counter": "us_per_phase"}]
        with tempfile.TemporaryDirectory() as work:
            path = Path(work) / "anchors.json"
            path.write_text(json.dumps(anchors), encoding="utf-8")
            text = "\n".join(anchors_section(self.entries, path))
        self.assertIn("| dependent atomic | 60 ns | 120 ns | 2.0x | why it differs |", text)
        self.assertIn("| absent | 1 us | not in this run |", text)
        self.assertEqual(anchors_section(self.entries, Path("/nonexistent.json")), [])

    def test_placement_of_each_series_is_listed(self):
        group = next(g for g in build_groups(self.entries) if g.family == "lock")
        text = "\n".join(placement_section(group))
        self.assertIn("### Placement of each series", text)
        self.assertIn("| `std.mutex` | host (ordinary host memory (CPU-only cells)) |", text)
        self.assertRegex(text, r"\| `unisync.mutex \(scope:system\)` \| host \(.*\), managed \(make_managed, no advice\) \|")

    def test_failures_list_the_message(self):
        lines = failures_section(self.entries)
        self.assertIn("1 cell did not run; left out of the plots and tables.", lines)
        self.assertIn(f"| `{ERROR_NAME}` | {ERROR_MESSAGE} |", lines)


class Spec:
    latency = "ns_per_op"
    latency_unit = "ns/op"


class Entry:
    def __init__(self, spreads=None, **counters):
        self.counters = counters
        self.spreads = spreads or {}

    def counter(self, key):
        return self.counters.get(key)

    def counter_range(self, key):
        return self.spreads.get(key)


class Group:
    """Two cells, ours slower than a peer that starves a waiter in the first."""
    title = "Locks"
    spec = Spec()
    cells = [Cell(1, 1, 128), Cell(4, 132, 128)]

    def __init__(self, with_waits):
        peer_wait = {"max_wait_us": 100_000.0} if with_waits else {}
        ours_wait = {"max_wait_us": 200.0} if with_waits else {}
        self.series = {
            "cuda.binary_semaphore": {self.cells[0]: Entry(ns_per_op=100.0, **peer_wait),
                                      self.cells[1]: Entry(ns_per_op=100.0, **ours_wait)},
            "unisync.ticket_mutex": {self.cells[0]: Entry(ns_per_op=150.0, **ours_wait),
                                     self.cells[1]: Entry(ns_per_op=150.0, **ours_wait)},
        }

    def values(self, label, counter):
        return {cell: entry.counter(counter) for cell, entry in self.series[label].items()
                if entry.counter(counter) is not None}

    def ranges(self, label, counter):
        return {cell: entry.counter_range(counter) for cell, entry in self.series[label].items()
                if entry.counter_range(counter) is not None}


class RepeatedGroup(Group):
    """The same two cells measured three times: in the first the peer's slowest repetition
    beat ours' fastest, in the second the two overlap."""

    def __init__(self):
        super().__init__(with_waits=False)
        peer, ours = self.series["cuda.binary_semaphore"], self.series["unisync.ticket_mutex"]
        peer[self.cells[0]].spreads = {"ns_per_op": (90.0, 120.0)}
        ours[self.cells[0]].spreads = {"ns_per_op": (130.0, 160.0)}
        peer[self.cells[1]].spreads = {"ns_per_op": (95.0, 155.0)}
        ours[self.cells[1]].spreads = {"ns_per_op": (140.0, 150.0)}


class Sink:
    def place(self, title, header, rows):
        return [title]


class BestPerCell(unittest.TestCase):
    def test_counts_wins_among_series_with_bounded_waits(self):
        text = "\n".join(best_section(Group(with_waits=True), Sink()))
        self.assertIn("One of ours is best in 0 of 2 cells.", text)
        self.assertIn("longest wait in the cell is at most 10 ms: one of ours is best in 1 of 2 cells.",
                      text)

    def test_says_nothing_of_waits_where_none_is_reported(self):
        text = "\n".join(best_section(Group(with_waits=False), Sink()))
        self.assertIn("One of ours is best in 0 of 2 cells.", text)
        self.assertNotIn("longest wait", text)

    def test_names_the_close_calls_over_repetitions(self):
        text = "\n".join(best_section(RepeatedGroup(), Sink()))
        self.assertIn("the faster one's slowest repetition beat the other's fastest in 1 of 2 "
                      "cells; the others are close calls: 4 × 132x128.", text)

    def test_says_nothing_of_repetitions_where_each_case_ran_once(self):
        text = "\n".join(best_section(Group(with_waits=False), Sink()))
        self.assertNotIn("repetition", text)


class LatchGroup(Group):
    """A GPU-only cell and two mixed cells; ours within 5 µs in one mixed cell."""
    title = "Latches"
    cells = [Cell(0, 132, 128), Cell(1, 1, 128), Cell(4, 132, 128)]

    def __init__(self, with_releases=True):
        releases = [(2.0, 3.0), (4.0, 9.0), (6.5, 12.0)] if with_releases else [(None, None)] * 3
        peer = [(300.0, 900.0)] * 3 if with_releases else [(None, None)] * 3

        def entries(values):
            return {cell: Entry(**({"release_us": median, "release_p99_us": tail} if median else {}))
                    for cell, (median, tail) in zip(self.cells, values)}
        self.series = {"cuda.latch": entries(peer), "unisync.latch": entries(releases)}

    def ours(self):
        return ["unisync.latch"]


class Release(unittest.TestCase):
    def test_counts_mixed_cells_within_the_goal(self):
        text = "\n".join(release_section(LatchGroup(), Sink()))
        self.assertIn("releases within 5 µs (median) in 1 of 2 mixed cells.", text)

    def test_is_left_out_without_release_counters(self):
        self.assertEqual(release_section(LatchGroup(with_releases=False), Sink()), [])


if __name__ == "__main__":
    unittest.main()
