#!/usr/bin/env python3
"""Tests for contention_report.sections: markdown sections built from entries."""

import json
import tempfile
import unittest
from pathlib import Path

from contention_report.results import load_entries
from contention_report.sections import anchors_section, failures_section
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

    def test_failures_list_the_message(self):
        lines = failures_section(self.entries)
        self.assertIn("1 cell did not run; left out of the plots and tables.", lines)
        self.assertIn(f"| `{ERROR_NAME}` | {ERROR_MESSAGE} |", lines)


if __name__ == "__main__":
    unittest.main()
