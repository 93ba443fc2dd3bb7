#!/usr/bin/env python3
"""Tests for contention_report.tables: markdown tables and long ones moved aside."""

import tempfile
import unittest
from pathlib import Path

from contention_report.results import Cell
from contention_report.tables import INLINE_ROW_LIMIT, TableSink, anchor_cells, markdown_table


class Tables(unittest.TestCase):
    def test_cells_are_escaped(self):
        self.assertEqual(markdown_table(["a|b"], [["x\ny"]]), ["| a\\|b |", "|---|", "| x y |"])

    def test_anchor_cells(self):
        cells = [Cell(cpu, blocks, 128 if blocks else 0) for cpu in (0, 1, 4)
                 for blocks in (0, 8, 132, 264) if cpu + blocks]
        self.assertEqual(anchor_cells(cells, sm_count=132),
                         {Cell(0, 8, 128), Cell(0, 264, 128), Cell(1, 0, 0), Cell(4, 0, 0),
                          Cell(1, 8, 128), Cell(1, 132, 128), Cell(4, 132, 128)})

    def test_long_tables_go_to_a_side_file(self):
        rows = [(Cell(cpu, 0, 0), [cpu]) for cpu in range(1, INLINE_ROW_LIMIT + 2)]
        with tempfile.TemporaryDirectory() as work:
            sink = TableSink(Path(work), "lock", "Locks", sm_count=None)
            self.assertEqual(sink.place("short", ["cpu"], rows[:3]),
                             ["| cpu |", "|---|", "| 1 |", "| 2 |", "| 3 |"])
            inline = sink.place("long", ["cpu"], rows)
            sink.write()
            side = (Path(work) / "tables" / "lock.md").read_text(encoding="utf-8")
        self.assertIn("(tables/lock.md)", inline[0])
        self.assertEqual(inline[-2:], ["| 1 |", f"| {INLINE_ROW_LIMIT + 1} |"])
        self.assertIn(f"| {INLINE_ROW_LIMIT} |", side.splitlines())


if __name__ == "__main__":
    unittest.main()
