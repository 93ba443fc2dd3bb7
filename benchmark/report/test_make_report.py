#!/usr/bin/env python3
"""Tests of make_report.py as CMake runs it: JSON in, report.md, side tables and PNGs out.

Run from this folder with `python3 -m unittest discover -p "test_*.py"` (every module) or
`python3 test_make_report.py`.
"""

import json
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from contention_report.formatting import MISSING, format_ratio
from contention_report.groups import GRID_SYNC
from contention_report.tables import INLINE_ROW_LIMIT
from synthetic_results import (DEVICE_ROUND_TRIP_NS, ERROR_MESSAGE, ERROR_NAME, GPU_NOTE,
                               GPU_ONLY_DEVICE_NS, KNOWN_CELL, KNOWN_LATCH_US, KNOWN_OURS_NS,
                               KNOWN_OURS_OPS,
                               KNOWN_PEER_OPS, KNOWN_SHARED_OPS, KNOWN_SHARED_PEER_OPS, MANAGED_ROUND_TRIP_NS, full_input,
                               gpu_less_input, sparse_input)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "make_report.py"
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
RESULTS = HERE.parent / "results"
# The title and command each committed full report was written with.
H100_TITLE = "unisync contention report: H100 (PCIe), 16-core host, every family"
H100_COMMAND = """\
F='--unisync_set=full --unisync_window_ms=100 --benchmark_out_format=json'
build/release/bin/unisync_contention $F --benchmark_out=a.json --benchmark_filter='^(machine|lock)/'
build/release/bin/unisync_contention $F --benchmark_out=b.json --benchmark_filter='^(barrier|semaphore|latch|shared_mutex|application)/'
# b.json's benchmarks appended to a.json's: benchmark/results/h100/results.json, then:
benchmark/report/make_report.py --input benchmark/results/h100/results.json --output benchmark/results/h100"""
H200_TITLE = "unisync contention report: H200 (PCIe), 16-core host, every family"
H200_COMMAND = """\
F='--unisync_set=full --unisync_window_ms=100 --benchmark_repetitions=3 --benchmark_out_format=json'
for fam in machine lock barrier latch semaphore shared_mutex application; do
  build/release/bin/unisync_contention $F --benchmark_out=$fam.json --benchmark_filter="^$fam/"
done
# each repetition places its object anew; the report shows the median of the three.
# The families' repetitions (not Google Benchmark's aggregates) appended in that order:
# benchmark/results/h200/results.json, then `xz -9` (the tree keeps results.json.xz):
benchmark/report/make_report.py --input benchmark/results/h200/results.json.xz --output benchmark/results/h200 \\
  --title '""" + H200_TITLE + """'"""


def run_script(input_path, output_dir, *extra):
    return subprocess.run([PYTHON, str(SCRIPT), "--input", str(input_path), "--output",
                           str(output_dir), *extra], capture_output=True, text=True, timeout=300)


def table_after(text, heading):
    """Rows (lists of cell strings) of the first markdown table after the heading line."""
    lines = text.splitlines()
    start = lines.index(heading)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
        elif rows:
            break
    return rows


def linked_images(report):
    return re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)


class ReportCase(unittest.TestCase):
    """Writes an input, runs the script once, and keeps the output for the assertions."""

    payload = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = Path(cls.tmp.name)
        cls.input = root / "results.json"
        cls.input.write_text(json.dumps(cls.payload()), encoding="utf-8")
        cls.out = root / "report"
        cls.result = run_script(cls.input, cls.out, "--command",
                                "./unisync_contention --benchmark_out=results.json")
        cls.report = ((cls.out / "report.md").read_text(encoding="utf-8")
                      if cls.result.returncode == 0 else "")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_ran(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)

    def assert_images_exist(self, minimum):
        images = linked_images(self.report)
        self.assertGreaterEqual(len(images), minimum)
        for image in images:
            path = self.out / image
            self.assertTrue(path.is_file(), image)
            self.assertEqual(path.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")


class GpuLessReport(ReportCase):
    payload = staticmethod(gpu_less_input)

    def test_report_and_plots_exist(self):
        self.assert_ran()
        self.assert_images_exist(minimum=5)

    def test_no_gpu_note_is_prominent(self):
        self.assert_ran()
        first_block = self.report.split("## Machine")[0]
        self.assertIn("**No GPU: " + GPU_NOTE, first_block)

    def test_sections_without_gpu_are_explained(self):
        self.assert_ran()
        self.assertIn("| Measurement window | 200 ms |", self.report)
        self.assertIn("No machine entries", self.report)
        self.assertIn("no mixed CPU+GPU cell", self.report)
        self.assertIn("./unisync_contention --benchmark_out=results.json", self.report)


class FullReport(ReportCase):
    payload = staticmethod(full_input)

    def test_report_and_plots_exist(self):
        self.assert_ran()
        self.assert_images_exist(minimum=13)
        for name in ("lock_heatmap.png", "lock_throughput.png", "lock_fairness.png",
                     "semaphore_N1_heatmap.png", "semaphore_N4_fairness.png",
                     "barrier_block_throughput.png", "barrier_thread_heatmap.png",
                     "latch_block_heatmap.png", "latch_thread_throughput.png",
                     "shared_mutex_reads90_heatmap.png", "shared_mutex_reads99_fairness.png"):
            self.assertIn(f"({name})", self.report)

    def test_names_lose_benchmark_suffixes(self):
        self.assert_ran()
        self.assertNotIn("manual_time", self.report)
        self.assertNotIn("iterations:", self.report)

    def lock_ratio_rows(self, label):
        """(header, {(cpu, gpu): row}) of one of our lock series' full ratio table."""
        side = (self.out / "tables" / "lock.md").read_text(encoding="utf-8")
        rows = table_after(side, f"## Locks: {label} vs peers and the physical limit")
        return rows[0], {(row[0], row[1]): row for row in rows[2:]}

    def test_series_split_by_scope(self):
        self.assert_ran()
        for label in ("unisync.mutex (scope:system)", "unisync.mutex (scope:device)",
                      "cuda.binary_semaphore (scope:device)"):
            self.assertIn(label, self.report)
        self.assertIn("#### `unisync.spin_mutex`", self.report)
        self.assertIn("| vs std.mutex |", self.report)

    def test_peer_and_limit_ratios(self):
        self.assert_ran()
        self.assertIn("(tables/lock.md)", self.report)
        header, by_cell = self.lock_ratio_rows("unisync.mutex (scope:system)")
        peer = "vs cuda.binary_semaphore (scope:system)"
        mixed = by_cell[(str(KNOWN_CELL[0]), f"{KNOWN_CELL[1]}x256")]
        self.assertEqual(mixed[header.index(peer)],
                         format_ratio(KNOWN_OURS_OPS / KNOWN_PEER_OPS))
        self.assertEqual(mixed[header.index(peer)], "3.2x")
        self.assertEqual(mixed[header.index("vs std.mutex")], MISSING)
        self.assertEqual(mixed[header.index("ns/op ÷ round trip")],
                         format_ratio(KNOWN_OURS_NS / MANAGED_ROUND_TRIP_NS))
        self.assertTrue(mixed[header.index("reference")].startswith("cpu_gpu managed:"))
        gpu_only = by_cell[("0", "132x256")]
        self.assertEqual(gpu_only[header.index("ns/op ÷ round trip")], "2.0x")
        self.assertTrue(gpu_only[header.index("reference")].startswith(
            "block_block acq_rel system:"))
        cpu_only = by_cell[("4", "0x0")]
        self.assertEqual(cpu_only[header.index("ns/op ÷ round trip")], MISSING)

    def test_device_scope_limit(self):
        self.assert_ran()
        rows = table_after(self.report, "#### `unisync.mutex (scope:device)`")
        header, by_cell = rows[0], {(row[0], row[1]): row for row in rows[2:]}
        gpu_only = by_cell[("0", "132x256")]
        self.assertEqual(gpu_only[header.index("ns/op ÷ round trip")],
                         format_ratio(GPU_ONLY_DEVICE_NS / DEVICE_ROUND_TRIP_NS))
        self.assertTrue(gpu_only[header.index("reference")].startswith(
            "block_block acq_rel device:"))
        self.assertNotIn(("1", "132x256"), by_cell)

    def test_shared_mutex_sections_by_read_fraction(self):
        self.assert_ran()
        self.assertLess(self.report.index("## Locks"),
                        self.report.index("## Shared mutexes, reads = 90%"))
        self.assertLess(self.report.index("## Shared mutexes, reads = 90%"),
                        self.report.index("## Shared mutexes, reads = 99%"))
        self.assertLess(self.report.index("## Shared mutexes, reads = 99%"),
                        self.report.index("## Semaphores, N = 1"))
        section = self.report.split("## Shared mutexes, reads = 99%")[1].split("\n## ")[0]
        self.assertIn("take every section exclusively", section)
        self.assertIn("| `unisync.shared_mutex (scope:system)` | host (ordinary host memory "
                      "(CPU-only cells)), managed_advised (make_managed with the type's own "
                      "per-part advice) |", section)
        rows = table_after(section, "#### `unisync.shared_mutex (scope:system)`")
        header = rows[0]
        self.assertIn("vs std.shared_mutex", header)
        mixed = {(row[0], row[1]): row for row in rows[2:]}[(str(KNOWN_CELL[0]),
                                                           f"{KNOWN_CELL[1]}x1")]
        self.assertEqual(mixed[header.index("vs cuda.binary_semaphore")],
                         format_ratio(KNOWN_SHARED_OPS / KNOWN_SHARED_PEER_OPS))
        self.assertEqual(mixed[header.index("vs std.shared_mutex")], MISSING)

    def test_barrier_ratio_to_grid_sync(self):
        self.assert_ran()
        section = self.report.split("## Barriers, mode = block")[1]
        rows = table_after(section, "#### `unisync.barrier (scope:system)`")
        header = rows[0]
        gpu_only = {(row[0], row[1]): row for row in rows[2:]}[("0", "132x128")]
        self.assertEqual(gpu_only[header.index(f"vs {GRID_SYNC}")], "0.5x")
        self.assertEqual(gpu_only[header.index(f"µs/phase ÷ {GRID_SYNC}")], "2.0x")

    def test_thread_mode_borrows_block_mode_grid_sync(self):
        self.assert_ran()
        section = self.report.split("## Barriers, mode = thread")[1]
        rows = table_after(section, "#### `unisync.barrier (scope:system)`")
        header = rows[0]
        gpu_only = {(row[0], row[1]): row for row in rows[2:]}[("0", "132x128")]
        self.assertEqual(gpu_only[header.index(f"µs/phase ÷ {GRID_SYNC}")], "8.0x")

    def test_latch_ratio_to_grid_sync(self):
        self.assert_ran()
        section = self.report.split("## Latches, mode = block")[1]
        rows = table_after(section, "#### `unisync.latch (scope:system)`")
        header = rows[0]
        self.assertIn("vs std.latch", header)
        gpu_only = {(row[0], row[1]): row for row in rows[2:]}[("0", "132x128")]
        grid_sync_us = (1 + 0.02 * 132) / 2.0  # synthetic_results: grid.sync at speed 2.0
        self.assertEqual(gpu_only[header.index(f"µs/round ÷ {GRID_SYNC}")],
                         format_ratio(KNOWN_LATCH_US / grid_sync_us))
        self.assertIn(f"our µs per round over {GRID_SYNC}'s µs per phase", section)

    def test_latch_release_per_cell(self):
        self.assert_ran()
        section = self.report.split("## Latches, mode = block")[1].split("\n## ")[0]
        self.assertIn("### Release: last count_down to last waiter released", section)
        self.assertRegex(section, r"releases within 5 µs \(median\) in \d+ of \d+ mixed cells")

    def test_long_tables_keep_anchor_rows_inline(self):
        self.assert_ran()
        rows = table_after(self.report, "#### `unisync.mutex (scope:system)`")
        cells = {(row[0], row[1]) for row in rows[2:]}
        for anchor in (("4", "132x256"), ("15", "132x256"), ("0", "1x256"), ("0", "264x256"),
                       ("1", "0x0"), ("15", "0x0")):
            self.assertIn(anchor, cells)
        self.assertNotIn(("4", "264x256"), cells)
        self.assertLessEqual(len(rows) - 2, INLINE_ROW_LIMIT)

    def test_failed_cells_table(self):
        self.assert_ran()
        failures = self.report.split("## Failed and skipped cells")[1]
        self.assertIn(f"`{ERROR_NAME}`", failures)
        self.assertIn(ERROR_MESSAGE, failures)

    def test_machine_limits(self):
        self.assert_ran()
        limits = self.report.split("## Physical limits")[1].split("\n## ")[0]
        self.assertIn("Dependent atomic latency", limits)
        self.assertIn("| block_block | acq_rel | system |", limits)
        self.assertIn("| atomic_add | 132x1 | 5 | 660 | 132x |", limits)

    def test_best_implementation_table(self):
        self.assert_ran()
        section = self.report.split("## Semaphores, N = 1")[1]
        rows = table_after(section, "### Best implementation per cell")
        self.assertEqual(rows[0][2], "best")
        winners = {row[2] for row in rows[2:]}
        self.assertEqual(winners, {"**`unisync.counting_semaphore (scope:system)`**",
                                   "**`unisync.counting_semaphore (scope:device)`**"})

    def test_output_is_deterministic(self):
        self.assert_ran()
        again = Path(self.tmp.name) / "again"
        result = run_script(self.input, again, "--command",
                            "./unisync_contention --benchmark_out=results.json")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((again / "report.md").read_text(encoding="utf-8"), self.report)
        for image in linked_images(self.report):
            self.assertEqual((again / image).read_bytes(), (self.out / image).read_bytes(), image)


class SparseReport(ReportCase):
    payload = staticmethod(sparse_input)

    def test_missing_counters_are_noted(self):
        self.assert_ran()
        self.assertIn("1 entry without the counter `ns_per_op`", self.report)
        self.assertIn("entries without the counter `jain`", self.report)
        self.assertIn("no peer and no physical limit", self.report)
        self.assertIn("No successful `semaphore` entries", self.report)
        self.assert_images_exist(minimum=2)

    def test_repetitions_and_odd_entries_are_reported(self):
        self.assert_ran()
        self.assertIn("1 entry ran more than once; the median", self.report)
        self.assertIn("could not be parsed were left out (1)", self.report)
        self.assertIn("lacks the key gpu", self.report)
        self.assertIn("unknown families were left out: queue", self.report)
        self.assertNotIn("_mean", self.report)


class BadInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def assert_refused(self, path, words):
        result = run_script(path, self.root / "out")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn(words, result.stderr)
        self.assertFalse((self.root / "out" / "report.md").exists())

    def test_missing_file(self):
        self.assert_refused(self.root / "absent.json", "does not exist")

    def test_not_json(self):
        path = self.root / "bad.json"
        path.write_text("not json at all", encoding="utf-8")
        self.assert_refused(path, "is not JSON")

    def test_xz_name_without_xz_content(self):
        path = self.root / "plain.json.xz"
        path.write_text("{}", encoding="utf-8")
        self.assert_refused(path, "is not xz-compressed")

    def test_not_google_benchmark_json(self):
        path = self.root / "list.json"
        path.write_text(json.dumps([{"name": "lock"}]), encoding="utf-8")
        self.assert_refused(path, "not Google Benchmark JSON")


class CommittedReports(unittest.TestCase):
    """Each committed full report is what this tool writes from its committed results."""

    def assert_regenerated(self, folder, title, command, results="results.json"):
        with tempfile.TemporaryDirectory() as work:
            result = run_script(RESULTS / folder / results, work, "--title", title,
                                "--command", command)
            self.assertEqual(result.returncode, 0, result.stderr)
            written = (Path(work) / "report.md").read_bytes()
        self.assertEqual(written, (RESULTS / folder / "report.md").read_bytes())

    def test_h100_report_is_byte_identical(self):
        self.assert_regenerated("h100", H100_TITLE, H100_COMMAND)

    def test_h200_report_is_byte_identical(self):
        self.assert_regenerated("h200", H200_TITLE, H200_COMMAND, "results.json.xz")


if __name__ == "__main__":
    unittest.main()
