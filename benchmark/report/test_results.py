#!/usr/bin/env python3
"""Tests for contention_report.results: benchmark names and entries."""

import unittest

from contention_report.results import Cell, load_entries, parse_name
from synthetic_results import SUFFIX, contention_entry


class NameParsing(unittest.TestCase):
    def test_benchmark_suffixes_are_stripped(self):
        parsed = parse_name(
            "lock/impl:unisync.mutex/scope:system/place:managed/cpu:4/gpu:132x256" + SUFFIX)
        self.assertEqual(parsed.family, "lock")
        self.assertEqual(parsed.schema_name,
                         "lock/impl:unisync.mutex/scope:system/place:managed/cpu:4/gpu:132x256")
        self.assertEqual(parsed.params, {"impl": "unisync.mutex", "scope": "system",
                                         "place": "managed", "cpu": "4", "gpu": "132x256"})

    def test_real_time_suffix_and_machine_names(self):
        parsed = parse_name("machine/test:ping_pong/between:cpu_gpu/place:pinned/real_time")
        self.assertEqual(parsed.params, {"test": "ping_pong", "between": "cpu_gpu",
                                         "place": "pinned"})

    def test_malformed_names_are_refused(self):
        for name in ("lock/impl:x/cpu:1", "lock/impl:x/cpu:one/gpu:1x1",
                     "semaphore/impl:x/cpu:1/gpu:132"):
            with self.assertRaises(ValueError, msg=name):
                parse_name(name)


class EntryLoading(unittest.TestCase):
    def test_repetitions_merge_by_median(self):
        runs = [contention_entry("lock", "unisync.mutex", "scope:system", 4, 132, 256)
                for _ in range(3)]
        for run, ops in zip(runs, (1.0, 5.0, 2.0)):
            run["ops_per_s"] = ops
        entries, notes = load_entries(runs)
        self.assertEqual(len(entries), 1)
        self.assertEqual(entries[0].counter("ops_per_s"), 2.0)
        self.assertEqual(entries[0].counter_range("ops_per_s"), (1.0, 5.0))
        self.assertEqual(entries[0].cell, Cell(4, 132, 256))
        self.assertEqual(notes, ["1 entry ran more than once; the median of each counter is "
                                 "shown."])

    def test_an_entry_that_ran_once_has_no_range(self):
        entries, _ = load_entries([contention_entry("lock", "unisync.mutex", "scope:system", 4,
                                                    132, 256)])
        self.assertIsNone(entries[0].counter_range("ops_per_s"))

    def test_failed_runs_keep_their_message(self):
        failed = {"name": "lock/impl:x/cpu:1/gpu:0x0" + SUFFIX, "error_occurred": True,
                  "error_message": "skipped: no GPU"}
        entries, _ = load_entries([failed])
        self.assertEqual((entries[0].name, entries[0].error),
                         ("lock/impl:x/cpu:1/gpu:0x0", "skipped: no GPU"))


if __name__ == "__main__":
    unittest.main()
