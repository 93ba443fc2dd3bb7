#!/usr/bin/env python3
"""Tests for make_report.py: synthetic Google Benchmark JSON in, report.md and PNGs out.

Run from this folder with `python3 -m unittest` or `python3 test_make_report.py`.
"""

import json
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "make_report.py"
PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
SUFFIX = "/iterations:1/manual_time"

sys.path.insert(0, str(HERE))
import make_report  # noqa: E402  (found through the path set just above)

BASE_CONTEXT = {
    "date": "2025-11-23T01:02:03+00:00",
    "host_name": "testhost",
    "executable": "./unisync_contention",
    "num_cpus": 16,
    "mhz_per_cpu": 3000,
    "cpu_scaling_enabled": False,
    "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 2},
               {"type": "Unified", "level": 3, "size": 33554432, "num_sharing": 16}],
    "load_avg": [0.1, 0.2, 0.3],
    "library_build_type": "release",
    "window_ms": "200.000000",
    "set": "full",
}

KNOWN_CELL = (4, 132)
KNOWN_OURS_OPS = 3.2e6
KNOWN_PEER_OPS = 1.0e6
KNOWN_OURS_NS = 2000.0
MANAGED_ROUND_TRIP_NS = 1000.0
DEVICE_ROUND_TRIP_NS = 500.0
SYSTEM_ROUND_TRIP_NS = 900.0
GPU_ONLY_DEVICE_NS = 4000.0
GPU_ONLY_SYSTEM_NS = 1800.0
ERROR_NAME = "lock/impl:unisync.cohort_mutex/scope:system/place:managed/cpu:15/gpu:264x256"
ERROR_MESSAGE = "cohort_mutex needs one cohort per SM; skipped"


def case_name(family, impl, fields, cpu, blocks, threads, host_only=False):
    """family/impl:<impl>/<fields>/place:<place>/cpu:<n>/gpu:<b>x<t>, as the binary names cases."""
    place = "host" if host_only or blocks == 0 else "managed"
    return (f"{family}/impl:{impl}/{fields}/place:{place}/cpu:{cpu}/gpu:{blocks}x{threads}"
            + SUFFIX)


def contention_entry(family, impl, fields, cpu, blocks, threads, speed=1.0, fairness=True):
    """One lock/semaphore entry with plausible counters derived from the cell."""
    actors = cpu + blocks
    ops = speed * 1e7 / (1 + 0.3 * cpu + 0.05 * blocks)
    entry = {"name": case_name(family, impl, fields, cpu, blocks, threads),
             "run_type": "iteration", "iterations": 1, "real_time": 2e8, "cpu_time": 1e5,
             "time_unit": "us", "ops_per_s": ops, "ns_per_op": 1e9 / ops, "window_s": 0.2,
             "actor_min": 10.0, "actor_max": 100.0, "max_wait_us": 50.0 + actors}
    if fairness:
        entry.update(cpu_share=cpu / actors, jain=1.0 / (1.0 + 0.01 * actors))
    return entry


def barrier_entry(impl, fields, cpu, blocks, threads, speed=1.0):
    """One barrier entry; phases and µs per phase consistent with each other."""
    phases = speed * 1e6 / (1 + 0.2 * cpu + 0.02 * blocks)
    return {"name": case_name("barrier", impl, fields, cpu, blocks, threads),
            "run_type": "iteration", "iterations": 1, "real_time": 2e8, "time_unit": "us",
            "phases_per_s": phases, "us_per_phase": 1e6 / phases, "window_s": 0.2}


def machine_entry(path, ns):
    return {"name": f"machine/test:{path}{SUFFIX}", "run_type": "iteration", "iterations": 1,
            "real_time": ns, "time_unit": "ns", "ns_per_op": ns}


def grid(cpus, blocks_values):
    """Every (cpu, blocks) pair except the empty one."""
    return [(c, b) for c in cpus for b in blocks_values if c + b > 0]


def set_counters(entries, name_start, cell, **counters):
    """Pin known counter values on one entry, so the tests can check the ratios built on them."""
    cpu, blocks = cell
    for entry in entries:
        if entry["name"].startswith(name_start) and f"/cpu:{cpu}/gpu:{blocks}x" in entry["name"]:
            entry.update(counters)


def lock_entries():
    """A grid of more than 60 cells, so the lock tables go to tables/lock.md."""
    entries = []
    both = {"unisync.mutex": 1.5, "unisync.spin_mutex": 2.0, "unisync.ticket_mutex": 1.2,
            "cuda.binary_semaphore": 1.0}
    device_only = {"unisync.mutex": 1.7, "unisync.ticket_mutex": 1.3,
                   "cuda.binary_semaphore": 1.1}
    for cpu, blocks in grid([0, 1, 2, 4, 8, 12, 15], [0, 1, 2, 4, 8, 16, 32, 64, 132, 264]):
        threads = 256 if blocks else 0
        for impl, speed in both.items():
            entries.append(contention_entry("lock", impl, "scope:system", cpu, blocks, threads,
                                            speed=speed))
        if cpu == 0:
            for impl, speed in device_only.items():
                entries.append(contention_entry("lock", impl, "scope:device", 0, blocks,
                                                threads, speed=speed))
        if blocks == 0:
            entries.append(contention_entry("lock", "std.mutex", "scope:host", cpu, 0, 0,
                                            speed=0.8))
    system_mutex = "lock/impl:unisync.mutex/scope:system/"
    set_counters(entries, system_mutex, KNOWN_CELL, ops_per_s=KNOWN_OURS_OPS,
                 ns_per_op=KNOWN_OURS_NS)
    set_counters(entries, "lock/impl:cuda.binary_semaphore/scope:system/", KNOWN_CELL,
                 ops_per_s=KNOWN_PEER_OPS)
    set_counters(entries, system_mutex, (0, 132), ns_per_op=GPU_ONLY_SYSTEM_NS)
    set_counters(entries, "lock/impl:unisync.mutex/scope:device/", (0, 132),
                 ns_per_op=GPU_ONLY_DEVICE_NS)
    return entries


def semaphore_entries():
    entries = []
    for permits in (1, 4):
        for cpu, blocks in grid([0, 1, 4], [0, 1, 8, 132]):
            threads = 128 if blocks else 0
            for impl, speed in (("unisync.counting_semaphore", 1.3),
                                ("cuda.counting_semaphore", 1.0)):
                entries.append(contention_entry("semaphore", impl, f"N:{permits}/scope:system",
                                                cpu, blocks, threads, speed=speed * permits))
                if cpu == 0:
                    entries.append(contention_entry("semaphore", impl,
                                                    f"N:{permits}/scope:device", 0, blocks,
                                                    threads, speed=speed * permits * 1.1))
            if blocks == 0:
                entries.append(contention_entry("semaphore", "std.counting_semaphore",
                                                f"N:{permits}/scope:host", cpu, 0, 0, speed=0.7))
    return entries


def barrier_entries():
    entries = []
    for cpu, blocks in grid([0, 2], [0, 4, 132]):
        threads = 128 if blocks else 0
        for mode, slow in (("block", 1), ("thread", 4)):
            for impl, speed in (("unisync.barrier", 1.0), ("cuda.barrier", 0.6)):
                entries.append(barrier_entry(impl, f"mode:{mode}/scope:system", cpu, blocks,
                                             threads, speed / slow))
                if cpu == 0:
                    entries.append(barrier_entry(impl, f"mode:{mode}/scope:device", 0, blocks,
                                                 threads, 1.2 * speed / slow))
        if cpu == 0:
            entries.append(barrier_entry(make_report.GRID_SYNC, "mode:block/scope:device", 0,
                                         blocks, threads, 2.0))
            entries.append(barrier_entry("kernel_relaunch", "mode:block/scope:device", 0,
                                         blocks, threads, 0.1))
        if blocks == 0:
            entries.append(barrier_entry("std.barrier", "mode:block/scope:host", cpu, 0, 0,
                                         0.9))
    return entries


def full_input():
    """Every family, peers, machine limits and one failed cell."""
    entries = lock_entries() + semaphore_entries() + barrier_entries()
    entries.append({"name": ERROR_NAME + SUFFIX, "run_type": "iteration", "iterations": 0,
                    "real_time": 0, "time_unit": "ns", "error_occurred": True,
                    "error_message": ERROR_MESSAGE})
    entries += [machine_entry("dependent_atomic/place:device", 120.0),
                machine_entry("dependent_atomic/place:managed", 700.0),
                machine_entry("dependent_atomic/place:pinned", 900.0),
                machine_entry("ping_pong/between:block_block/order:relaxed/scope:device", 300.0),
                machine_entry("ping_pong/between:block_block/order:acq_rel/scope:device",
                              DEVICE_ROUND_TRIP_NS),
                machine_entry("ping_pong/between:block_block/order:acq_rel/scope:system",
                              SYSTEM_ROUND_TRIP_NS),
                machine_entry("ping_pong/between:cpu_gpu/place:pinned", 1500.0),
                machine_entry("ping_pong/between:cpu_gpu/place:managed_host", 2500.0),
                machine_entry("ping_pong/between:cpu_gpu/place:managed", MANAGED_ROUND_TRIP_NS)]
    for op in ("volatile_load", "volatile_store", "atomic_add", "atomic_exch"):
        for blocks in (1, 132):
            entries.append(machine_entry(f"access/op:{op}/contention:uncontended/gpu:{blocks}x1",
                                         5.0))
            entries.append(machine_entry(f"access/op:{op}/contention:contended/gpu:{blocks}x1",
                                         5.0 * blocks))
    context = dict(BASE_CONTEXT, gpu_name="NVIDIA H100 80GB HBM3", compute_capability="9.0",
                   multiprocessors="132", host_native_atomic_supported="no",
                   concurrent_managed_access="yes", pageable_memory_access="no",
                   topology="PCIe Gen5 x16, GPU near NUMA node 0",
                   placement="CPU-only cells: host memory; cells with GPU actors: managed memory")
    return {"context": context, "benchmarks": entries}


GPU_NOTE = "No CUDA GPU (or driver) on this machine: only CPU-only cells ran"


def gpu_less_input():
    """What the binary writes on a machine without a GPU: CPU cells only, plus gpu_note."""
    entries = []
    for cpu in (1, 2, 4):
        for impl in ("unisync.mutex", "unisync.ticket_mutex"):
            entries.append(contention_entry("lock", impl, "scope:system", cpu, 0, 0))
        entries.append(contention_entry("lock", "std.mutex", "scope:host", cpu, 0, 0))
        entries.append(contention_entry("semaphore", "unisync.counting_semaphore",
                                        "N:2/scope:system", cpu, 0, 0))
        entries.append(contention_entry("semaphore", "std.counting_semaphore", "N:2/scope:host",
                                        cpu, 0, 0, speed=0.8))
        entries.append(barrier_entry("unisync.barrier", "mode:block/scope:system", cpu, 0, 0))
        entries.append(barrier_entry("std.barrier", "mode:block/scope:host", cpu, 0, 0, 0.9))
    context = dict(BASE_CONTEXT, set="short",
                   gpu_note=GPU_NOTE + ". GPU-only and CPU+GPU cells need a GPU.")
    return {"context": context, "benchmarks": entries}


def sparse_input():
    """One lock implementation, counters partly missing, no machine family."""
    entries = [contention_entry("lock", "unisync.mutex", "scope:system", cpu, blocks,
                                32 if blocks else 0, fairness=False)
               for cpu, blocks in grid([0, 2], [0, 4])]
    del entries[0]["ns_per_op"]
    repeat = dict(entries[1], ops_per_s=entries[1]["ops_per_s"] * 3)
    aggregate = dict(entries[1], name=entries[1]["name"] + "_mean", run_type="aggregate")
    malformed = dict(entries[1], name="lock/impl:unisync.mutex/cpu:1" + SUFFIX)
    unknown = dict(entries[1], name="queue/impl:unisync.queue/cpu:1/gpu:0x0" + SUFFIX)
    return {"context": {"date": "2025-01-01"},
            "benchmarks": entries + [repeat, aggregate, malformed, unknown]}


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
                     "barrier_block_throughput.png", "barrier_thread_heatmap.png"):
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
                         make_report.format_ratio(KNOWN_OURS_OPS / KNOWN_PEER_OPS))
        self.assertEqual(mixed[header.index(peer)], "3.2x")
        self.assertEqual(mixed[header.index("vs std.mutex")], make_report.MISSING)
        self.assertEqual(mixed[header.index("ns/op ÷ round trip")],
                         make_report.format_ratio(KNOWN_OURS_NS / MANAGED_ROUND_TRIP_NS))
        self.assertTrue(mixed[header.index("reference")].startswith("cpu_gpu managed:"))
        gpu_only = by_cell[("0", "132x256")]
        self.assertEqual(gpu_only[header.index("ns/op ÷ round trip")], "2.0x")
        self.assertTrue(gpu_only[header.index("reference")].startswith(
            "block_block acq_rel system:"))
        cpu_only = by_cell[("4", "0x0")]
        self.assertEqual(cpu_only[header.index("ns/op ÷ round trip")], make_report.MISSING)

    def test_device_scope_limit(self):
        self.assert_ran()
        rows = table_after(self.report, "#### `unisync.mutex (scope:device)`")
        header, by_cell = rows[0], {(row[0], row[1]): row for row in rows[2:]}
        gpu_only = by_cell[("0", "132x256")]
        self.assertEqual(gpu_only[header.index("ns/op ÷ round trip")],
                         make_report.format_ratio(GPU_ONLY_DEVICE_NS / DEVICE_ROUND_TRIP_NS))
        self.assertTrue(gpu_only[header.index("reference")].startswith(
            "block_block acq_rel device:"))
        self.assertNotIn(("1", "132x256"), by_cell)

    def test_barrier_ratio_to_grid_sync(self):
        self.assert_ran()
        section = self.report.split("## Barriers, mode = block")[1]
        rows = table_after(section, "#### `unisync.barrier (scope:system)`")
        header = rows[0]
        gpu_only = {(row[0], row[1]): row for row in rows[2:]}[("0", "132x128")]
        self.assertEqual(gpu_only[header.index(f"vs {make_report.GRID_SYNC}")], "0.5x")
        self.assertEqual(gpu_only[header.index(f"µs/phase ÷ {make_report.GRID_SYNC}")], "2.0x")

    def test_thread_mode_borrows_block_mode_grid_sync(self):
        self.assert_ran()
        section = self.report.split("## Barriers, mode = thread")[1]
        rows = table_after(section, "#### `unisync.barrier (scope:system)`")
        header = rows[0]
        gpu_only = {(row[0], row[1]): row for row in rows[2:]}[("0", "132x128")]
        self.assertEqual(gpu_only[header.index(f"µs/phase ÷ {make_report.GRID_SYNC}")], "8.0x")

    def test_long_tables_keep_anchor_rows_inline(self):
        self.assert_ran()
        rows = table_after(self.report, "#### `unisync.mutex (scope:system)`")
        cells = {(row[0], row[1]) for row in rows[2:]}
        for anchor in (("4", "132x256"), ("15", "132x256"), ("0", "1x256"), ("0", "264x256"),
                       ("1", "0x0"), ("15", "0x0")):
            self.assertIn(anchor, cells)
        self.assertNotIn(("4", "264x256"), cells)
        self.assertLessEqual(len(rows) - 2, make_report.INLINE_ROW_LIMIT)

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

    def test_not_google_benchmark_json(self):
        path = self.root / "list.json"
        path.write_text(json.dumps([{"name": "lock"}]), encoding="utf-8")
        self.assert_refused(path, "not Google Benchmark JSON")


class NameParsing(unittest.TestCase):
    def test_benchmark_suffixes_are_stripped(self):
        parsed = make_report.parse_name(
            "lock/impl:unisync.mutex/scope:system/place:managed/cpu:4/gpu:132x256" + SUFFIX)
        self.assertEqual(parsed.family, "lock")
        self.assertEqual(parsed.schema_name,
                         "lock/impl:unisync.mutex/scope:system/place:managed/cpu:4/gpu:132x256")
        self.assertEqual(parsed.params, {"impl": "unisync.mutex", "scope": "system",
                                         "place": "managed", "cpu": "4", "gpu": "132x256"})

    def test_real_time_suffix_and_machine_names(self):
        parsed = make_report.parse_name(
            "machine/test:ping_pong/between:cpu_gpu/place:pinned/real_time")
        self.assertEqual(parsed.params, {"test": "ping_pong", "between": "cpu_gpu",
                                         "place": "pinned"})

    def test_malformed_names_are_refused(self):
        for name in ("lock/impl:x/cpu:1", "lock/impl:x/cpu:one/gpu:1x1",
                     "semaphore/impl:x/cpu:1/gpu:132"):
            with self.assertRaises(ValueError, msg=name):
                make_report.parse_name(name)

    def test_anchors_compare_with_this_run(self):
        entries, _ = make_report.load_entries(full_input()["benchmarks"])
        anchors = [{"quantity": "dependent atomic", "anchor": 60, "unit": "ns",
                    "benchmark": "machine/test:dependent_atomic/place:device",
                    "counter": "ns_per_op", "note": "why it differs"},
                   {"quantity": "absent", "anchor": 1.0, "unit": "us",
                    "benchmark": "barrier/impl:none/mode:block/scope:device/place:managed/cpu:0/gpu:1x1",
                    "counter": "us_per_phase"}]
        with tempfile.TemporaryDirectory() as work:
            path = Path(work) / "anchors.json"
            path.write_text(json.dumps(anchors), encoding="utf-8")
            text = "\n".join(make_report.anchors_section(entries, path))
        self.assertIn("| dependent atomic | 60 ns | 120 ns | 2.0x | why it differs |", text)
        self.assertIn("| absent | 1 us | not in this run |", text)
        self.assertEqual(make_report.anchors_section(entries, Path("/nonexistent.json")), [])

    def test_ratio_format(self):
        self.assertEqual(make_report.format_ratio(3.2), "3.2x")
        self.assertEqual(make_report.format_ratio(0.0312), "0.031x")
        self.assertEqual(make_report.format_ratio(123.4), "123x")
        self.assertEqual(make_report.format_ratio(None), make_report.MISSING)


if __name__ == "__main__":
    unittest.main()
