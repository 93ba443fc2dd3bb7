"""Synthetic Google Benchmark JSON as the contention binary writes it, for the report's tests:
every family with peers and machine limits, a GPU-less run, and a sparse, partly broken one."""

from contention_report.groups import GRID_SYNC

SUFFIX = "/iterations:1/manual_time"

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


def case_name(family, impl, fields, cpu, blocks, threads, host_only=False, advised=False):
    """family/impl:<impl>/<fields>/place:<place>/cpu:<n>/gpu:<b>x<t>, as the binary names cases."""
    place = "host" if host_only or blocks == 0 else ("managed_advised" if advised else "managed")
    return (f"{family}/impl:{impl}/{fields}/place:{place}/cpu:{cpu}/gpu:{blocks}x{threads}"
            + SUFFIX)


def contention_entry(family, impl, fields, cpu, blocks, threads, speed=1.0, fairness=True,
                     advised=False):
    """One lock/semaphore/shared mutex entry with plausible counters derived from the cell."""
    actors = cpu + blocks
    ops = speed * 1e7 / (1 + 0.3 * cpu + 0.05 * blocks)
    entry = {"name": case_name(family, impl, fields, cpu, blocks, threads, advised=advised),
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


def latch_entry(impl, fields, cpu, blocks, threads, speed=1.0):
    """One latch entry; rounds and µs per round consistent with each other."""
    rounds = speed * 8e5 / (1 + 0.2 * cpu + 0.02 * blocks)
    return {"name": case_name("latch", impl, fields, cpu, blocks, threads),
            "run_type": "iteration", "iterations": 1, "real_time": 6e2, "time_unit": "us",
            "rounds_per_s": rounds, "us_per_round": 1e6 / rounds, "window_s": 512 / rounds,
            # Released within a round; measured where GPU actors take part.
            **({"release_us": 0.6e6 / rounds, "release_p99_us": 0.9e6 / rounds} if blocks else {})}


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


KNOWN_SHARED_OPS = 8.0e6
KNOWN_SHARED_PEER_OPS = 2.0e6


def shared_mutex_entries():
    """90% and 99% reads over the binary's cells: readers-writer locks and exclusive locks."""
    entries = []
    for reads in (90, 99):
        for cpu, blocks in grid([0, 1, 4, 15], [0, 1, 132, 528]):
            threads = 1 if blocks else 0
            fields = f"reads:{reads}/scope:system"
            entries.append(contention_entry("shared_mutex", "unisync.shared_mutex", fields, cpu,
                                            blocks, threads, speed=reads / 30, advised=True))
            entries.append(contention_entry("shared_mutex", "unisync.cohort_mutex", fields, cpu,
                                            blocks, threads, speed=1.4, advised=True))
            entries.append(contention_entry("shared_mutex", "cuda.binary_semaphore", fields,
                                            cpu, blocks, threads, speed=1.0))
            if cpu == 0:
                entries.append(contention_entry("shared_mutex", "unisync.shared_mutex",
                                                f"reads:{reads}/scope:device", 0, blocks,
                                                threads, speed=reads / 20, advised=True))
            if blocks == 0:
                entries.append(contention_entry("shared_mutex", "std.shared_mutex",
                                                f"reads:{reads}/scope:host", cpu, 0, 0,
                                                speed=reads / 40))
    set_counters(entries, "shared_mutex/impl:unisync.shared_mutex/reads:99/scope:system/",
                 KNOWN_CELL, ops_per_s=KNOWN_SHARED_OPS)
    set_counters(entries, "shared_mutex/impl:cuda.binary_semaphore/reads:99/scope:system/",
                 KNOWN_CELL, ops_per_s=KNOWN_SHARED_PEER_OPS)
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
            entries.append(barrier_entry(GRID_SYNC, "mode:block/scope:device", 0,
                                         blocks, threads, 2.0))
            entries.append(barrier_entry("kernel_relaunch", "mode:block/scope:device", 0,
                                         blocks, threads, 0.1))
        if blocks == 0:
            entries.append(barrier_entry("std.barrier", "mode:block/scope:host", cpu, 0, 0,
                                         0.9))
    return entries


KNOWN_LATCH_US = 4.0


def latch_entries():
    entries = []
    for cpu, blocks in grid([0, 2], [0, 4, 132]):
        threads = 128 if blocks else 0
        for mode, slow in (("block", 1), ("thread", 3)):
            for impl, speed in (("unisync.latch", 1.0), ("cuda.latch", 0.5)):
                entries.append(latch_entry(impl, f"mode:{mode}/scope:system", cpu, blocks, threads,
                                           speed / slow))
                if cpu == 0:
                    entries.append(latch_entry(impl, f"mode:{mode}/scope:device", 0, blocks,
                                               threads, 1.2 * speed / slow))
        if blocks == 0:
            entries.append(latch_entry("std.latch", "mode:block/scope:host", cpu, 0, 0, 0.7))
    set_counters(entries, "latch/impl:unisync.latch/mode:block/scope:system/", (0, 132),
                 us_per_round=KNOWN_LATCH_US, rounds_per_s=1e6 / KNOWN_LATCH_US)
    return entries


def full_input():
    """Every family, peers, machine limits and one failed cell."""
    entries = (lock_entries() + shared_mutex_entries() + semaphore_entries() + barrier_entries()
               + latch_entries())
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
        entries.append(latch_entry("unisync.latch", "mode:block/scope:system", cpu, 0, 0))
        entries.append(latch_entry("std.latch", "mode:block/scope:host", cpu, 0, 0, 0.7))
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
