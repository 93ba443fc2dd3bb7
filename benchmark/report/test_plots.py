#!/usr/bin/env python3
"""Tests for contention_report.plots: which plots are written and which are skipped."""

import tempfile
import unittest
from pathlib import Path

from contention_report.groups import build_groups
from contention_report.plots import plot_fairness, plot_heatmaps, plot_throughput
from contention_report.results import load_entries
from synthetic_results import gpu_less_input


class CpuOnlyPlots(unittest.TestCase):
    def setUp(self):
        entries, _ = load_entries(gpu_less_input()["benchmarks"])
        self.lock = next(group for group in build_groups(entries) if group.family == "lock")
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_heatmap_and_throughput_are_written(self):
        for plot in (plot_heatmaps, plot_throughput):
            path = self.root / f"{plot.__name__}.png"
            self.assertIsNone(plot(self.lock, path))
            self.assertEqual(path.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")

    def test_fairness_without_mixed_cells_is_skipped(self):
        path = self.root / "fairness.png"
        self.assertIn("no mixed CPU+GPU cell", plot_fairness(self.lock, path))
        self.assertFalse(path.exists())


if __name__ == "__main__":
    unittest.main()
