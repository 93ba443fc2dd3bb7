"""The Applications section: plots written, our best against the best alternative."""

import tempfile
import unittest
from pathlib import Path

from contention_report.applications import applications_section, series_label
from contention_report.results import load_entries

SUFFIX = "/iterations:1/manual_time"


def bench(name, **counters):
    return {"name": name + SUFFIX, "run_type": "iteration", "iterations": 1, "real_time": 1e5,
            "time_unit": "us", **counters}


def solver(impl, size, rate):
    return bench(f"application/workload:solver/impl:{impl}/size:{size}/iterations:100/place:device/cpu:0/gpu:0x256",
                 iterations_per_s=rate)


def table(impl, stripes, rate, share=0.5):
    return bench(f"application/workload:table/impl:{impl}/stripes:{stripes}/lock_bytes:128/place:managed/"
                 f"cpu:4/gpu:132x1", ops_per_s=rate, cpu_share=share, max_wait_us=100.0)


def queue(impl, rate, blocks=132, direction="cpu_to_gpu"):
    return bench(f"application/workload:queue/direction:{direction}/impl:{impl}/work_ns:0/place:managed/"
                 f"cpu:4/gpu:{blocks}x1", items_per_s=rate, latency_median_us=5.0, latency_p99_us=20.0)


BENCHMARKS = [
    solver("unisync.barrier", 256, 4e5), solver("cg.grid_sync", 256, 2e5), solver("kernel_relaunch", 256, 1e5),
    solver("unisync.barrier", 1024, 1e5), solver("cg.grid_sync", 1024, 1.25e5),
    table("unisync.mutex", 64, 3e6), table("unisync.ticket_mutex", 64, 1e6), table("cuda.binary_semaphore", 64, 2e6),
    queue("unisync.counting_semaphore", 2e6), queue("cuda.counting_semaphore", 4e5),
    queue("batched_launch/batch:64", 1e6), queue("unisync.counting_semaphore", 1e6, direction="gpu_to_cpu"),
    queue("unisync.partitioned_semaphore/ring:64", 1.5e6, direction="gpu_to_cpu"),
    queue("cuda.counting_semaphore", 5e5, direction="gpu_to_cpu"),
]


class ApplicationsSectionTest(unittest.TestCase):
    def setUp(self):
        self.entries, _ = load_entries(BENCHMARKS)
        self.folder = tempfile.TemporaryDirectory()
        self.out = Path(self.folder.name)
        self.text = "\n".join(applications_section(self.entries, self.out))

    def tearDown(self):
        self.folder.cleanup()

    def test_writes_one_plot_per_workload(self):
        for plot in ("application_solver.png", "application_table.png", "application_queue.png"):
            self.assertTrue((self.out / plot).is_file(), plot)
            self.assertIn(f"]({plot})", self.text)

    def test_ratio_is_ours_over_the_best_alternative(self):
        self.assertIn("| 256² | 400k | 200k | 100k | cg.grid_sync | 2.0x |", self.text)
        self.assertIn("| 1024² | 100k | 125k | — | cg.grid_sync | 0.8x |", self.text)  # where a peer wins

    def test_batched_launch_is_an_alternative_with_its_batch(self):
        self.assertIn("| cpu to gpu | 4 | 132 | 0 | 2M | 5 / 20 | batched_launch (batch 64) | 1M | 5 / 20 | 2.0x |",
                      self.text)

    def test_a_ring_other_than_the_default_says_its_size(self):
        self.assertIn("| gpu to cpu | 4 | 132 | 0 | 1.5M | 5 / 20 | cuda.counting_semaphore | 500k | 5 / 20 | 3.0x |",
                      self.text)
        ours = [e for e in self.entries if e.params.get("ring") == "64"]
        self.assertEqual([series_label(e) for e in ours], ["unisync.partitioned_semaphore (ring of 64)"])

    def test_table_splits_operations_by_side(self):
        self.assertIn("| 4 CPU × 132 blocks | 64 | unisync.mutex (128 B) | 1.5M / 1.5M | 100 |", self.text)
        self.assertIn("| 1M / 1M | 100 | 1.5x |", self.text)

    def test_no_application_entries_no_section(self):
        self.assertEqual(applications_section([], self.out), [])


if __name__ == "__main__":
    unittest.main()
