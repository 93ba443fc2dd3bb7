#!/usr/bin/env python3
"""Tests for contention_report.groups: series, cells and the references ratios use."""

import unittest

from contention_report.groups import MachineLimits, build_groups, grid_sync_reference
from contention_report.results import Cell, load_entries
from synthetic_results import (DEVICE_ROUND_TRIP_NS, MANAGED_ROUND_TRIP_NS, full_input)


class Groups(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.entries, _ = load_entries(full_input()["benchmarks"])
        cls.groups = build_groups(cls.entries)

    def group(self, title):
        return next(group for group in self.groups if group.title.startswith(title))

    def test_groups_in_reading_order(self):
        self.assertEqual([group.slug for group in self.groups],
                         ["lock", "shared_mutex_reads90", "shared_mutex_reads99",
                          "semaphore_N1", "semaphore_N4", "barrier_block", "barrier_thread",
                          "latch_block", "latch_thread"])

    def test_series_split_by_scope_ours_first(self):
        labels = list(self.group("Locks").series)
        self.assertEqual(labels[:2], ["unisync.mutex (scope:device)",
                                      "unisync.mutex (scope:system)"])
        self.assertIn("std.mutex", labels)
        self.assertEqual(self.group("Locks").ours()[-1], "unisync.ticket_mutex (scope:system)")

    def test_shared_mutexes_grouped_by_read_fraction(self):
        for reads in ("90", "99"):
            group = self.group(f"Shared mutexes, reads = {reads}%")
            self.assertEqual(group.variant, reads)
            self.assertEqual(group.ours(), ["unisync.cohort_mutex",
                                            "unisync.shared_mutex (scope:device)",
                                            "unisync.shared_mutex (scope:system)"])
            self.assertEqual(group.peers(), ["cuda.binary_semaphore", "std.shared_mutex"])
            self.assertEqual(len(group.cells), 15)
            self.assertTrue(all(entry.params["reads"] == reads for by_cell in
                                group.series.values() for entry in by_cell.values()))

    def test_round_trip_by_scope_and_placement(self):
        limits = MachineLimits(self.entries)
        lock = self.group("Locks")
        mixed = lock.series["unisync.mutex (scope:system)"][Cell(4, 132, 256)]
        device = lock.series["unisync.mutex (scope:device)"][Cell(0, 132, 256)]
        cpu_only = lock.series["unisync.mutex (scope:system)"][Cell(4, 0, 0)]
        self.assertEqual(limits.round_trip_for(mixed),
                         ("cpu_gpu managed", MANAGED_ROUND_TRIP_NS))
        self.assertEqual(limits.round_trip_for(device),
                         ("block_block acq_rel device", DEVICE_ROUND_TRIP_NS))
        self.assertIsNone(limits.round_trip_for(cpu_only))

    def test_thread_mode_borrows_block_mode_grid_sync(self):
        block = self.group("Barriers, mode = block")
        thread = self.group("Barriers, mode = thread")
        cell = Cell(0, 132, 128)
        self.assertIsNotNone(grid_sync_reference(self.groups, block, cell))
        self.assertEqual(grid_sync_reference(self.groups, thread, cell),
                         grid_sync_reference(self.groups, block, cell))
        self.assertIsNone(grid_sync_reference(self.groups, block, Cell(0, 8, 128)))

    def test_latch_modes_borrow_the_barrier_grid_sync(self):
        latch_block = self.group("Latches, mode = block")
        barrier_block = self.group("Barriers, mode = block")
        self.assertIn("one count_down per block", latch_block.title)
        self.assertEqual(latch_block.spec.latency, "us_per_round")
        cell = Cell(0, 132, 128)
        self.assertEqual(grid_sync_reference(self.groups, latch_block, cell),
                         grid_sync_reference(self.groups, barrier_block, cell))
        self.assertEqual(latch_block.peers(), ["cuda.latch (scope:device)",
                                               "cuda.latch (scope:system)", "std.latch"])


if __name__ == "__main__":
    unittest.main()
