"""Cells and ratios: entries grouped into series that are compared cell by cell, and the
references (peers, physical limits) each of our cells is measured against."""

import math
import re
from dataclasses import dataclass

from .formatting import compact
from .results import CONTENTION_FAMILIES, MACHINE_FAMILY

OURS_PREFIX = "unisync."
GRID_SYNC = "cg.grid_sync"
# Keys that place an entry in its group and cell; any other key tells same-impl series apart.
PLACING_KEYS = {"impl", "cpu", "gpu", "N", "mode", "reads"}


@dataclass(frozen=True)
class FamilySpec:
    """Which counters a family is judged by, and how to label them."""

    heading: str
    latency: str
    latency_unit: str
    latency_label: str
    throughput: str
    throughput_unit: str
    throughput_label: str
    fairness: bool


SPECS = {
    "lock": FamilySpec("Locks", "ns_per_op", "ns/op", "ns per critical section",
                       "ops_per_s", "ops/s", "critical sections per second", True),
    "shared_mutex": FamilySpec("Shared mutexes", "ns_per_op", "ns/op",
                               "ns per section (shared or exclusive)", "ops_per_s", "ops/s",
                               "sections (shared and exclusive) per second", True),
    "semaphore": FamilySpec("Semaphores", "ns_per_op", "ns/op", "ns per acquire+release pair",
                            "ops_per_s", "ops/s", "acquire+release pairs per second", True),
    "barrier": FamilySpec("Barriers", "us_per_phase", "µs/phase", "µs per barrier phase",
                          "phases_per_s", "phases/s", "barrier phases per second", False),
    "latch": FamilySpec("Latches", "us_per_round", "µs/round",
                        "µs per round (every participant counts down once on a fresh latch and "
                        "waits)", "rounds_per_s", "rounds/s", "latch rounds per second", False),
}
BARRIER_MODES = {"block": "block-collective: one arrival per block",
                 "thread": "per-thread arrival: every GPU thread arrives"}
LATCH_MODES = {"block": "block-collective: one count_down per block",
               "thread": "per-thread count_down: every GPU thread counts down"}
# Families whose GPU actors arrive per block or per thread, grouped by that mode.
MODE_FAMILIES = {"barrier": BARRIER_MODES, "latch": LATCH_MODES}
# Families measured against cg.grid_sync's µs per phase: a latch round is a one-shot barrier.
GRID_SYNC_FAMILIES = ("barrier", "latch")


@dataclass
class Group:
    """Entries compared with one another: a family, and its N (semaphores), mode (barriers,
    latches) or read percentage (shared mutexes)."""

    family: str
    variant: str
    series: dict  # series label -> {Cell: Entry}

    @property
    def spec(self):
        return SPECS[self.family]

    @property
    def title(self):
        if self.family == "semaphore":
            return f"Semaphores, N = {self.variant}"
        if self.family == "shared_mutex":
            return f"Shared mutexes, reads = {self.variant}%"
        if self.family in MODE_FAMILIES:
            detail = MODE_FAMILIES[self.family].get(self.variant)
            return f"{self.spec.heading}, mode = {self.variant}" + (f" ({detail})" if detail else "")
        return self.spec.heading

    @property
    def slug(self):
        """File-name stem for this group's plots and side tables."""
        variant = re.sub(r"[^A-Za-z0-9_.-]", "_", self.variant)
        if self.family == "semaphore":
            return f"semaphore_N{variant}"
        if self.family == "shared_mutex":
            return f"shared_mutex_reads{variant}"
        if self.family in MODE_FAMILIES:
            return f"{self.family}_{variant}"
        return self.family

    @property
    def cells(self):
        return sorted({cell for by_cell in self.series.values() for cell in by_cell})

    def values(self, label, counter):
        """{Cell: value} of one series for one counter, leaving out cells without it."""
        return self._per_cell(label, lambda entry: entry.counter(counter))

    def ranges(self, label, counter):
        """{Cell: (smallest, largest)} of one series for one counter over its repetitions,
        for the cells it ran more than once."""
        return self._per_cell(label, lambda entry: entry.counter_range(counter))

    def _per_cell(self, label, read):
        """{Cell: read(entry)} of one series, leaving out cells where read gives None."""
        found = {}
        for cell, entry in self.series[label].items():
            value = read(entry)
            if value is not None:
                found[cell] = value
        return found

    def ours(self):
        return [label for label in self.series if is_ours(label)]

    def peers(self):
        return [label for label in self.series if not is_ours(label)]


def is_ours(label):
    """unisync's own implementations are named unisync.*; everything else is a peer."""
    return label.startswith(OURS_PREFIX)


def series_order(label):
    """Ours first, then peers, each alphabetically, so legends and tables read the same."""
    return (not is_ours(label), label)


def distinguishing_keys(entries):
    """The fewest extra keys (scope first, then place) that tell apart one implementation's
    entries in the same cell, e.g. its scope:system and scope:device variants."""
    extras = tuple(sorted({key for e in entries for key in e.params} - PLACING_KEYS))
    for keys in (("scope",), ("place",), ("scope", "place"), extras):
        if len({(tuple(e.params.get(k) for k in keys), e.cell) for e in entries}) == len(entries):
            return keys
    return extras


def series_label(entry, keys):
    """The implementation's name, plus the keys that set its variant apart, if any."""
    shown = [f"{key}:{entry.params[key]}" for key in keys if key in entry.params]
    impl = entry.params["impl"]
    return f"{impl} ({', '.join(shown)})" if shown else impl


def build_groups(entries):
    """Group successful contention entries by family and N/mode/reads, then into series by
    impl."""
    buckets = {}
    for entry in entries:
        if entry.error is None and entry.family in CONTENTION_FAMILIES:
            variant = {"semaphore": entry.params.get("N", "unspecified"),
                       "shared_mutex": entry.params.get("reads", "unspecified"),
                       "barrier": entry.params.get("mode", "unspecified"),
                       "latch": entry.params.get("mode", "unspecified")}.get(entry.family, "")
            buckets.setdefault((entry.family, variant), []).append(entry)
    groups = []
    for (family, variant), members in buckets.items():
        by_impl = {}
        for entry in members:
            by_impl.setdefault(entry.params["impl"], []).append(entry)
        series = {}
        for impl_entries in by_impl.values():
            cells = [entry.cell for entry in impl_entries]
            keys = distinguishing_keys(impl_entries) if len(set(cells)) < len(cells) else ()
            for entry in impl_entries:
                series.setdefault(series_label(entry, keys), {})[entry.cell] = entry
        ordered = {label: series[label] for label in sorted(series, key=series_order)}
        groups.append(Group(family, variant, ordered))
    return sorted(groups, key=group_order)


def group_order(group):
    """Locks, shared mutexes by ascending read percentage, semaphores by ascending N,
    barriers and latches by mode."""
    variant = group.variant
    numeric = int(variant) if variant.isdigit() else math.inf
    return (CONTENTION_FAMILIES.index(group.family), numeric, variant)


def safe_ratio(numerator, denominator):
    """numerator / denominator, or None when either is missing or not positive."""
    if numerator is None or denominator is None or numerator <= 0 or denominator <= 0:
        return None
    return numerator / denominator


class MachineLimits:
    """The machine family's measurements, looked up by their keys."""

    def __init__(self, entries):
        self.entries = [e for e in entries if e.family == MACHINE_FAMILY and e.error is None]

    def find(self, **wanted):
        """(entry, ns_per_op) of the first machine entry, by name, whose keys include wanted."""
        for entry in self.entries:
            value = entry.counter("ns_per_op")
            if value is not None and all(entry.params.get(k) == v for k, v in wanted.items()):
                return entry, value
        return None

    def round_trip_for(self, entry):
        """The ping-pong round trip a lock/semaphore cell is bounded by, as (label, ns), or None.

        CPU-only cells have no GPU-side limit; GPU-only cells use the block-to-block acq_rel
        round trip at the cell's scope; mixed cells the CPU-GPU round trip on the cell's
        placement, else on managed memory resident on the host.
        """
        cell = entry.cell
        if cell.blocks == 0:
            return None
        if cell.cpu == 0:
            scope = entry.params.get("scope")
            if scope not in ("device", "system"):
                return None
            found = self.find(test="ping_pong", between="block_block", order="acq_rel",
                              scope=scope)
            label = f"block_block acq_rel {scope}"
        else:
            place = entry.params.get("place")
            found = self.find(test="ping_pong", between="cpu_gpu", place=place) if place else None
            label = f"cpu_gpu {place}"
            if found is None:
                found = self.find(test="ping_pong", between="cpu_gpu", place="managed_host")
                label = "cpu_gpu managed_host"
        return None if found is None else (label, found[1])


def grid_sync_reference(groups, group, cell):
    """cg.grid_sync's µs/phase for the cell's GPU configuration: same mode and CPU count
    preferred, then CPU count 0, then any other barrier mode."""
    candidates = []
    for other in groups:
        if other.family != "barrier":
            continue
        for label, by_cell in other.series.items():
            if not label.startswith(GRID_SYNC):
                continue
            for other_cell, entry in by_cell.items():
                value = entry.counter("us_per_phase")
                if (other_cell.blocks, other_cell.threads) == (cell.blocks, cell.threads) and value:
                    rank = (other.variant != group.variant, other_cell.cpu != cell.cpu,
                            other_cell.cpu != 0, other.variant, label)
                    candidates.append((rank, value))
    return min(candidates)[1] if candidates else None


def limit_for(group, groups, limits, entry):
    """(ratio, reference text) of one of our entries against its physical limit, or None."""
    if group.family in GRID_SYNC_FAMILIES:
        reference = grid_sync_reference(groups, group, entry.cell)
        ratio = safe_ratio(entry.counter(group.spec.latency), reference)
        return None if ratio is None else (ratio, f"{GRID_SYNC}: {compact(reference)} µs")
    found = limits.round_trip_for(entry)
    if found is None:
        return None
    label, round_trip = found
    ratio = safe_ratio(entry.counter("ns_per_op"), round_trip)
    return None if ratio is None else (ratio, f"{label}: {compact(round_trip)} ns")
