#!/usr/bin/env python3
"""Contention report generator for unisync.

Reads the Google Benchmark JSON (--benchmark_out) that the contention benchmark binary
writes and turns it into report.md plus PNG plots in one output folder: the machine
context, the physical limits (machine family), and per family (locks, semaphores per
permit count N, barriers per arrival mode) latency heatmaps, throughput curves, fairness
plots, ratio tables against the peers and the physical limits, and the best
implementation per cell.

Usage:
    make_report.py --input results.json --output DIR [--command "..."] [--title "..."]
"""

import argparse
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

CONTENTION_FAMILIES = ("lock", "semaphore", "barrier")
MACHINE_FAMILY = "machine"
OURS_PREFIX = "unisync."
GRID_SYNC = "cg.grid_sync"
# Keys that place an entry in its group and cell; any other key tells same-impl series apart.
PLACING_KEYS = {"impl", "cpu", "gpu", "N", "mode"}
# Google Benchmark appends these after the schema ("iterations:1", "manual_time", ...).
BENCHMARK_SUFFIX_KEYS = {"iterations", "repeats", "min_time", "min_warmup_time", "threads"}
BENCHMARK_SUFFIX_WORDS = {"manual_time", "real_time", "process_time"}
INLINE_ROW_LIMIT = 60
MISSING = "—"
DPI = 110


class InputError(Exception):
    """The input is absent or is not Google Benchmark JSON; the message says which."""


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
    "semaphore": FamilySpec("Semaphores", "ns_per_op", "ns/op", "ns per acquire+release pair",
                            "ops_per_s", "ops/s", "acquire+release pairs per second", True),
    "barrier": FamilySpec("Barriers", "us_per_phase", "µs/phase", "µs per barrier phase",
                          "phases_per_s", "phases/s", "barrier phases per second", False),
}
BARRIER_MODES = {"block": "block-collective: one arrival per block",
                 "thread": "per-thread arrival: every GPU thread arrives"}


class ParsedName(NamedTuple):
    """A benchmark name split into its family, its schema keys and the schema part of the name."""

    family: str
    params: dict
    schema_name: str


class Cell(NamedTuple):
    """One point of the CPU-threads × GPU-configuration grid."""

    cpu: int
    blocks: int
    threads: int

    @property
    def gpu(self):
        return f"{self.blocks}x{self.threads}"

    @property
    def is_mixed(self):
        return self.cpu > 0 and self.blocks > 0


@dataclass
class Entry:
    """One benchmark result (repetitions merged), or one failed cell when error is set."""

    name: str
    family: str
    params: dict
    counters: dict
    error: str | None = None

    def counter(self, key):
        """The counter's value, or None when the binary did not write it."""
        return self.counters.get(key)

    @property
    def cell(self):
        blocks, threads = parse_gpu(self.params["gpu"])
        return Cell(int(self.params["cpu"]), blocks, threads)


@dataclass
class Group:
    """Entries compared with one another: a family, and its N (semaphores) or mode (barriers)."""

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
        if self.family == "barrier":
            detail = BARRIER_MODES.get(self.variant)
            return f"Barriers, mode = {self.variant}" + (f" ({detail})" if detail else "")
        return self.spec.heading

    @property
    def slug(self):
        """File-name stem for this group's plots and side tables."""
        variant = re.sub(r"[^A-Za-z0-9_.-]", "_", self.variant)
        if self.family == "semaphore":
            return f"semaphore_N{variant}"
        if self.family == "barrier":
            return f"barrier_{variant}"
        return self.family

    @property
    def cells(self):
        return sorted({cell for by_cell in self.series.values() for cell in by_cell})

    def values(self, label, counter):
        """{Cell: value} of one series for one counter, leaving out cells without it."""
        found = {}
        for cell, entry in self.series[label].items():
            value = entry.counter(counter)
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


def parse_gpu(text):
    """'<blocks>x<threads per block>' as two integers."""
    blocks, sep, threads = text.partition("x")
    if not sep:
        raise ValueError(f"gpu:{text} is not <blocks>x<threads>")
    return int(blocks), int(threads)


def parse_name(name):
    """Split a benchmark name into family and keys, dropping Google Benchmark's suffixes.

    The schema is family/key:value/...; the first component that is not key:value, or whose
    key is one Google Benchmark adds (iterations:1, manual_time, ...), ends it.
    """
    parts = name.split("/")
    family = parts[0]
    if not family or ":" in family:
        raise ValueError(f"{name!r} does not start with a family")
    params = {}
    kept = [family]
    for part in parts[1:]:
        key, sep, value = part.partition(":")
        if not sep or key in BENCHMARK_SUFFIX_KEYS or part in BENCHMARK_SUFFIX_WORDS:
            break
        if key in params:
            raise ValueError(f"{name!r} repeats the key {key}")
        params[key] = value
        kept.append(part)
    if family in CONTENTION_FAMILIES:
        for key in ("impl", "cpu", "gpu"):
            if key not in params:
                raise ValueError(f"{name!r} lacks the key {key}")
        int(params["cpu"])
        parse_gpu(params["gpu"])
    return ParsedName(family, params, "/".join(kept))


def numeric_counters(bench):
    """The entry's finite numeric top-level values (Google Benchmark writes counters there)."""
    return {key: float(value) for key, value in bench.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value)}


def load_json(path):
    """Read the file and check it has Google Benchmark's shape, so later steps can trust it."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"input file {path} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"{path} is not JSON: {error}") from error
    if (not isinstance(data, dict) or not isinstance(data.get("context"), dict)
            or not isinstance(data.get("benchmarks"), list)):
        raise InputError(f"{path} is not Google Benchmark JSON: it needs a top-level "
                         "'context' object and a 'benchmarks' list (--benchmark_out format)")
    return data["context"], data["benchmarks"]


def load_entries(benchmarks):
    """Parse every per-iteration entry; merge repetitions by their median.

    Returns (entries, notes) where notes say what was left out and why.
    """
    notes = []
    by_name = {}
    unparsed = []
    for bench in benchmarks:
        if not isinstance(bench, dict) or not isinstance(bench.get("name"), str):
            unparsed.append("an entry without a name")
            continue
        if bench.get("run_type", "iteration") != "iteration":
            continue
        try:
            parsed = parse_name(bench["name"])
        except ValueError as error:
            unparsed.append(str(error))
            continue
        by_name.setdefault(parsed.schema_name, (parsed, []))[1].append(bench)
    if unparsed:
        notes.append(f"entries that could not be parsed were left out ({len(unparsed)}): "
                     + "; ".join(sorted(unparsed)))
    entries = []
    repeated = 0
    for schema_name in sorted(by_name):
        parsed, runs = by_name[schema_name]
        good = [run for run in runs if not run.get("error_occurred")]
        repeated += len(good) > 1
        if good:
            samples = [numeric_counters(run) for run in good]
            keys = sorted({key for sample in samples for key in sample})
            counters = {key: statistics.median(s[key] for s in samples if key in s)
                        for key in keys}
            entries.append(Entry(schema_name, parsed.family, parsed.params, counters))
        else:
            message = str(runs[0].get("error_message") or "error_occurred without a message")
            entries.append(Entry(schema_name, parsed.family, parsed.params, {}, message))
    if repeated:
        notes.append(f"{plural(repeated, 'entry', 'entries')} ran more than once; the median "
                     "of each counter is shown.")
    return entries, notes


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
    """Group successful contention entries by family and N/mode, then into series by impl."""
    buckets = {}
    for entry in entries:
        if entry.error is None and entry.family in CONTENTION_FAMILIES:
            variant = {"semaphore": entry.params.get("N", "unspecified"),
                       "barrier": entry.params.get("mode", "unspecified")}.get(entry.family, "")
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
    """Locks, semaphores by ascending N, barriers by mode."""
    variant = group.variant
    numeric = int(variant) if variant.isdigit() else math.inf
    return (CONTENTION_FAMILIES.index(group.family), numeric, variant)


def plural(count, word, many=None):
    """'1 cell', '2 cells'; many gives an irregular plural."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def natural_key(text):
    """Sort key that orders '1x1' before '132x1' by comparing digit runs as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


def compact(value):
    """Three significant digits with k/M/G suffixes: short enough for heatmap cells and tables."""
    if value is None:
        return MISSING
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:.3g}{suffix}"
    return f"{value:.3g}"


def format_ratio(ratio):
    """A ratio like 3.2x; small ratios keep two significant digits so they do not read as 0."""
    if ratio is None:
        return MISSING
    if ratio >= 10:
        return f"{ratio:.0f}x"
    if ratio >= 1:
        return f"{ratio:.1f}x"
    return f"{ratio:.2g}x"


def safe_ratio(numerator, denominator):
    """numerator / denominator, or None when either is missing or not positive."""
    if numerator is None or denominator is None or numerator <= 0 or denominator <= 0:
        return None
    return numerator / denominator


def code(text):
    """Implementation names in backticks, so that underscores do not turn into emphasis."""
    return f"`{text}`"


def markdown_table(header, rows):
    """A GitHub-flavoured table; '|' and line breaks in cells are escaped."""
    def clean(cell):
        return str(cell).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(clean(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(clean(c) for c in row) + " |" for row in rows]
    return lines


class TableSink:
    """Puts long tables into tables/<slug>.md and shows their anchor rows inline."""

    def __init__(self, out_dir, slug, title, sm_count):
        self.path = Path("tables") / f"{slug}.md"
        self.out_dir = out_dir
        self.title = title
        self.sm_count = sm_count
        self.sections = []

    def place(self, heading, header, rows):
        """Inline lines for one table; rows is [(Cell, table cells)]."""
        if len(rows) <= INLINE_ROW_LIMIT:
            return markdown_table(header, [cells for _, cells in rows])
        self.sections += [f"## {heading}", ""] + markdown_table(
            header, [cells for _, cells in rows]) + [""]
        anchors = anchor_cells([cell for cell, _ in rows], self.sm_count)
        subset = [cells for cell, cells in rows if cell in anchors]
        return [f"{len(rows)} rows: the full table is in [{self.path.as_posix()}]"
                f"({self.path.as_posix()}); shown here are the GPU-only, CPU-only and mixed "
                "anchor cells.", ""] + markdown_table(header, subset)

    def write(self):
        if not self.sections:
            return
        target = self.out_dir / self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = [f"# {self.title}: full tables", "", "Back to [the report](../report.md).", ""]
        target.write_text("\n".join(text + self.sections).rstrip("\n") + "\n", encoding="utf-8")


def anchor_cells(cells, sm_count):
    """Cells a shortened table keeps: both ends of the GPU-only and CPU-only ranges, every
    CPU-thread count at one block per SM (else at the widest mixed GPU configuration), and
    the smallest mixed cell."""
    anchors = set()
    gpu_only = sorted(c for c in cells if c.cpu == 0 and c.blocks > 0)
    cpu_only = sorted(c for c in cells if c.blocks == 0)
    mixed = sorted(c for c in cells if c.is_mixed)
    for run in (gpu_only, cpu_only):
        if run:
            anchors.update((run[0], run[-1]))
    if mixed:
        per_sm = [c for c in mixed if c.blocks == sm_count]
        widest = max((c.blocks, c.threads) for c in per_sm or mixed)
        anchors.update(c for c in mixed if (c.blocks, c.threads) == widest)
        anchors.add(mixed[0])
    return anchors


def series_styles(labels):
    """One colour per implementation so every plot of a section reads the same;
    ours solid with circles, peers dashed with squares."""
    cmap = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20")
    return {label: {"color": cmap(index % cmap.N),
                    "linestyle": "-" if is_ours(label) else "--",
                    "marker": "o" if is_ours(label) else "s"}
            for index, label in enumerate(labels)}


def legend_below(fig, handles, labels):
    """A figure legend under the plots (saved with bbox_inches='tight' so it is kept)."""
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(3, max(1, len(labels))), fontsize=8, frameon=False)


def save(fig, path):
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def gpu_tick_labels(configs):
    """Blocks alone when every GPU configuration has the same threads per block, else BxT."""
    threads = {t for b, t in configs if b > 0}
    if len(threads) <= 1:
        per_block = f" ({threads.pop()} threads per block)" if threads else ""
        return [str(b) for b, _ in configs], f"GPU blocks{per_block}; 0 = CPU only"
    return [f"{b}x{t}" for b, t in configs], "GPU blocks x threads per block"


def colorbar_ticks(low, high):
    """About five log-spaced ticks rounded to two digits, labelled like the cells are."""
    rounded = {float(f"{v:.2g}") for v in np.geomspace(low, high, 5)}
    return sorted(t for t in rounded if low <= t <= high) or [low, high]


def plot_heatmaps(group, path):
    """Latency over the CPU × GPU grid, one panel per implementation, on one log scale.

    Returns None when written, else why the plot was skipped.
    """
    spec = group.spec
    labels = [label for label in group.series if group.values(label, spec.latency)]
    if not labels:
        return f"no entry has the counter `{spec.latency}`, so the heatmap is skipped"
    cells = group.cells
    cpus = sorted({c.cpu for c in cells})
    configs = sorted({(c.blocks, c.threads) for c in cells})
    grids = {}
    for label in labels:
        grid = np.full((len(cpus), len(configs)), np.nan)
        for cell, value in group.values(label, spec.latency).items():
            if value > 0:
                grid[cpus.index(cell.cpu), configs.index((cell.blocks, cell.threads))] = value
        grids[label] = grid
    finite = np.concatenate([g[np.isfinite(g)] for g in grids.values()])
    if finite.size == 0:
        return f"no positive `{spec.latency}` value, so the heatmap is skipped"
    low, high = float(finite.min()), float(finite.max())
    if low == high:
        low, high = low / 1.5, high * 1.5
    norm = LogNorm(vmin=low, vmax=high)
    cmap = plt.get_cmap("viridis").with_extremes(bad="#d9d9d9")
    ticks, xlabel = gpu_tick_labels(configs)
    ncols = min(3, len(labels))
    nrows = math.ceil(len(labels) / ncols)
    width = max(3.6, 0.55 * len(configs) + 1.4)
    height = max(2.4, 0.42 * len(cpus) + 1.3)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols + 1.2, height * nrows + 0.6),
                             squeeze=False, constrained_layout=True)
    image = None
    for ax, label in zip(axes.flat, labels):
        grid = grids[label]
        image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="auto")
        for row, col in zip(*np.nonzero(np.isfinite(grid))):
            value = grid[row, col]
            ax.text(col, row, compact(value), ha="center", va="center", fontsize=7,
                    color="white" if norm(value) < 0.55 else "black")
        ax.set_xticks(range(len(configs)), ticks, fontsize=7,
                      rotation=90 if len(ticks[-1]) > 4 else 0)
        ax.set_yticks(range(len(cpus)), [str(c) for c in cpus], fontsize=7)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel("CPU threads", fontsize=8)
        ax.set_title(f"{label} ({'ours' if is_ours(label) else 'peer'})", fontsize=9,
                     fontweight="bold" if is_ours(label) else "normal")
    for ax in axes.flat[len(labels):]:
        ax.set_visible(False)
    colorbar = fig.colorbar(image, ax=axes.ravel().tolist(),
                            label=f"{spec.latency_label} (log scale)")
    ticks = colorbar_ticks(low, high)
    colorbar.set_ticks(ticks, labels=[compact(t) for t in ticks])
    colorbar.ax.minorticks_off()
    fig.suptitle(f"{group.title}: {spec.latency_label}, lower is better (grey: not measured)",
                 fontsize=10)
    save(fig, path)
    return None


def throughput_lines(group, label, cpu, threads_values):
    """[(threads per block or None, [(blocks, value)])] of one series at one CPU-thread count.

    With several threads-per-block values each gets its own line; the CPU-only point
    (0 blocks) starts every line.
    """
    values = group.values(label, group.spec.throughput)
    base = [(0, v) for c, v in values.items() if c.cpu == cpu and c.blocks == 0]
    lines = []
    for threads in threads_values:
        points = sorted((c.blocks, v) for c, v in values.items()
                        if c.cpu == cpu and c.blocks > 0 and c.threads == threads)
        if points:
            lines.append((threads if len(threads_values) > 1 else None, base + points))
    if not lines and base:
        lines.append((None, base))
    return lines


def plot_throughput(group, path):
    """Throughput against GPU blocks (seed-paper style, log y), one panel per CPU-thread count.

    Returns None when written, else why the plot was skipped.
    """
    spec = group.spec
    labels = [label for label in group.series if group.values(label, spec.throughput)]
    if not labels:
        return f"no entry has the counter `{spec.throughput}`, so the throughput plot is skipped"
    cells = [c for label in labels for c in group.values(label, spec.throughput)]
    if all(c.blocks == 0 for c in cells):
        return plot_throughput_cpu_only(group, labels, path)
    styles = series_styles(list(group.series))
    blocks = sorted({c.blocks for c in cells})
    threads_values = sorted({c.threads for c in cells if c.blocks > 0})
    thread_markers = dict(zip(threads_values, ["o", "^", "v", "D", "P", "X", "*", "h"] * 4))
    cpus = sorted({c.cpu for c in cells})
    ncols = min(3, len(cpus))
    nrows = math.ceil(len(cpus) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.4 * ncols, 3.3 * nrows), squeeze=False,
                             sharey=True, constrained_layout=True)
    handles = {}
    for ax, cpu in zip(axes.flat, cpus):
        for label in labels:
            for threads, points in throughput_lines(group, label, cpu, threads_values):
                style = dict(styles[label])
                name = label
                if threads is not None:
                    style["marker"] = thread_markers[threads]
                    name = f"{label}, {threads} threads/block"
                line, = ax.plot([blocks.index(b) for b, _ in points], [v for _, v in points],
                                markersize=4, linewidth=1.3, **style)
                handles.setdefault(name, line)
        ax.set_yscale("log")
        ax.set_xticks(range(len(blocks)), [str(b) for b in blocks], fontsize=7)
        title = "GPU only (0 CPU threads)" if cpu == 0 else f"{plural(cpu, 'CPU thread')}"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("GPU blocks (0 = CPU only)", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes[:, 0]:
        ax.set_ylabel(f"{spec.throughput_label} (log)", fontsize=8)
    for ax in axes.flat[len(cpus):]:
        ax.set_visible(False)
    fig.suptitle(f"{group.title}: {spec.throughput_label} vs GPU blocks, higher is better "
                 "(ours solid, peers dashed)", fontsize=10)
    ordered = sorted(handles, key=series_order)
    legend_below(fig, [handles[k] for k in ordered], ordered)
    save(fig, path)
    return None


def plot_throughput_cpu_only(group, labels, path):
    """Without GPU cells the GPU-blocks axis is empty, so plot throughput against CPU threads."""
    spec = group.spec
    styles = series_styles(list(group.series))
    cpus = sorted({c.cpu for label in labels for c in group.values(label, spec.throughput)})
    fig, ax = plt.subplots(figsize=(6.4, 3.8), constrained_layout=True)
    for label in labels:
        points = sorted((c.cpu, v) for c, v in group.values(label, spec.throughput).items())
        ax.plot([cpus.index(c) for c, _ in points], [v for _, v in points], label=label,
                markersize=4, linewidth=1.3, **styles[label])
    ax.set_yscale("log")
    ax.set_xticks(range(len(cpus)), [str(c) for c in cpus])
    ax.set_xlabel("CPU threads (no GPU blocks)")
    ax.set_ylabel(f"{spec.throughput_label} (log)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(f"{group.title}: {spec.throughput_label} vs CPU threads (CPU only)", fontsize=10)
    handles, names = ax.get_legend_handles_labels()
    legend_below(fig, handles, names)
    save(fig, path)
    return None


def plot_fairness(group, path):
    """CPU share and Jain index over the mixed cells, one line per implementation.

    Returns None when written, else why the plot was skipped.
    """
    panels = [("cpu_share", "CPU share of operations (0..1)"),
              ("jain", "Jain fairness index over actors (0..1]")]
    present = [(key, text) for key, text in panels
               if any(c.is_mixed for label in group.series for c in group.values(label, key))]
    if not present:
        return ("no mixed CPU+GPU cell with `cpu_share` or `jain`, so the fairness plot "
                "is skipped")
    cells = sorted({c for label in group.series for key, _ in present
                    for c in group.values(label, key) if c.is_mixed})
    styles = series_styles(list(group.series))
    fig, axes = plt.subplots(len(present), 1, sharex=True, squeeze=False,
                             figsize=(max(7.0, 0.3 * len(cells) + 3.0), 2.8 * len(present) + 0.8),
                             constrained_layout=True)
    handles = {}
    for ax, (key, text) in zip(axes[:, 0], present):
        for label in group.series:
            values = group.values(label, key)
            points = [(cells.index(c), values[c]) for c in cells if c in values]
            if points:
                line, = ax.plot([x for x, _ in points], [v for _, v in points], markersize=4,
                                linewidth=1.2, **styles[label])
                handles.setdefault(label, line)
        for index in range(1, len(cells)):
            if cells[index].cpu != cells[index - 1].cpu:
                ax.axvline(index - 0.5, color="grey", linewidth=0.6, linestyle=":")
        ax.set_ylim(-0.03, 1.03)
        ax.set_ylabel(text, fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    bottom = axes[-1, 0]
    bottom.set_xticks(range(len(cells)), [f"{c.cpu} / {c.gpu}" for c in cells], rotation=90,
                      fontsize=7)
    bottom.set_xlabel("mixed cell: CPU threads / GPU blocks x threads per block", fontsize=8)
    fig.suptitle(f"{group.title}: who gets served in mixed CPU+GPU cells "
                 "(ours solid, peers dashed)", fontsize=10)
    ordered = sorted(handles, key=series_order)
    legend_below(fig, [handles[k] for k in ordered], ordered)
    save(fig, path)
    return None


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


MACHINE_TITLES = {
    "dependent_atomic": "Dependent atomic latency (ns per dependent atomic, by placement)",
    "ping_pong": "Ping-pong round trip (ns per round trip, by scope and CPU-GPU placement)",
    "access": "Access cost, contended vs uncontended (ns per operation)",
}
MACHINE_KEY_ORDER = ["between", "order", "scope", "place", "op", "gpu"]


def machine_columns(entries):
    """The keys that vary within one machine test, in a reading order."""
    keys = {k for e in entries for k in e.params if k != "test"}
    return ([k for k in MACHINE_KEY_ORDER if k in keys]
            + sorted(k for k in keys if k not in MACHINE_KEY_ORDER))


def machine_section(entries):
    """Markdown for the physical limits: one table per machine test."""
    lines = ["## Physical limits (machine family)", ""]
    machine = [e for e in entries if e.family == MACHINE_FAMILY and e.error is None]
    if not machine:
        return lines + ["No machine entries in the input: the physical-limit tables and the "
                        "ratios to them are omitted.", ""]
    lines += ["What the hardware allows, after the seed paper's Table 1: the floor that any "
              "lock or barrier built on these operations pays.", ""]
    by_test = {}
    for entry in machine:
        by_test.setdefault(entry.params.get("test", "unnamed"), []).append(entry)
    known = list(MACHINE_TITLES)
    for test in sorted(by_test, key=lambda t: (known.index(t) if t in known else len(known), t)):
        members = sorted(by_test[test], key=lambda e: natural_key(e.name))
        lines += [f"### {MACHINE_TITLES.get(test, test)}", ""]
        if all(e.counter("ns_per_op") is None for e in members):
            lines += [f"Note: no `{test}` entry has the counter `ns_per_op`; table skipped.", ""]
            continue
        columns = machine_columns(members)
        contentions = {e.params.get("contention") for e in members}
        if {"contended", "uncontended"} <= contentions:
            lines += contention_table(members, [k for k in columns if k != "contention"])
        else:
            rows = [[e.params.get(k, MISSING) for k in columns] + [compact(e.counter("ns_per_op"))]
                    for e in members]
            lines += markdown_table(columns + ["ns"], rows)
        lines.append("")
    return lines


def contention_table(members, columns):
    """Contended and uncontended side by side, with their ratio: what contention costs."""
    rows = {}
    for entry in members:
        key = tuple(entry.params.get(k, MISSING) for k in columns)
        rows.setdefault(key, {})[entry.params.get("contention")] = entry.counter("ns_per_op")
    table = []
    for key in sorted(rows, key=lambda k: [natural_key(part) for part in k]):
        contended = rows[key].get("contended")
        uncontended = rows[key].get("uncontended")
        table.append(list(key) + [compact(uncontended), compact(contended),
                                  format_ratio(safe_ratio(contended, uncontended))])
    return markdown_table(columns + ["uncontended ns", "contended ns",
                                     "contended ÷ uncontended"], table)


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
    if group.family == "barrier":
        reference = grid_sync_reference(groups, group, entry.cell)
        ratio = safe_ratio(entry.counter("us_per_phase"), reference)
        return None if ratio is None else (ratio, f"{GRID_SYNC}: {compact(reference)} µs")
    found = limits.round_trip_for(entry)
    if found is None:
        return None
    label, round_trip = found
    ratio = safe_ratio(entry.counter("ns_per_op"), round_trip)
    return None if ratio is None else (ratio, f"{label}: {compact(round_trip)} ns")


def ratio_section(group, groups, limits, sink):
    """Per our implementation, a table of throughput ratios to each peer and to the limit."""
    spec = group.spec
    lines = ["### Ours vs peers and the physical limit", ""]
    ours = group.ours()
    peers = group.peers()
    if not ours:
        return lines + ["Note: no unisync implementation in this section; ratio tables skipped.",
                        ""]
    if group.family == "barrier":
        limit_header = f"µs/phase ÷ {GRID_SYNC}"
        limit_text = (f"`{limit_header}`: our µs per phase over {GRID_SYNC}'s in the same GPU "
                      "configuration (same mode and CPU count where measured, else its "
                      "GPU-only cell, else another mode's).")
    else:
        limit_header = "ns/op ÷ round trip"
        limit_text = ("`ns/op ÷ round trip`: our ns per operation over the ping-pong round "
                      "trip that bounds the cell (GPU-only: block_block acq_rel at the cell's "
                      "scope; mixed: cpu_gpu on the cell's placement, else managed_host; "
                      "CPU-only: none).")
    lines += [f"`vs <peer>`: our {spec.throughput_label} over the peer's in the same cell "
              "(above 1x: ours is faster). " + limit_text, ""]
    peer_values = {peer: group.values(peer, spec.throughput) for peer in peers}
    for label in ours:
        rows = []
        any_limit = False
        for cell, entry in sorted(group.series[label].items()):
            mine = entry.counter(spec.throughput)
            ratios = [format_ratio(safe_ratio(mine, peer_values[peer].get(cell)))
                      for peer in peers]
            limit = limit_for(group, groups, limits, entry)
            any_limit = any_limit or limit is not None
            limit_cells = [format_ratio(limit[0]), limit[1]] if limit else [MISSING, MISSING]
            rows.append((cell, [cell.cpu, cell.gpu, compact(mine)] + ratios + limit_cells))
        header = (["CPU threads", "GPU", f"ours {spec.throughput_unit}"]
                  + [f"vs {peer}" for peer in peers] + [limit_header, "reference"])
        if not any_limit:
            header = header[:-2]
            rows = [(cell, cells[:-2]) for cell, cells in rows]
        lines += [f"#### {code(label)}", ""]
        if not peers and not any_limit:
            lines += ["Note: no peer and no physical limit to compare with.", ""]
            continue
        lines += sink.place(f"{group.title}: {label} vs peers and the physical limit",
                            header, rows) + [""]
        if not any_limit:
            lines += ["Note: no matching physical-limit measurement; that column is omitted.", ""]
    return lines


def best_section(group, sink):
    """Which implementation is fastest in each cell, and by how much over the runner-up."""
    spec = group.spec
    lines = ["### Best implementation per cell", ""]
    latencies = {label: group.values(label, spec.latency) for label in group.series}
    rows = []
    ours_wins = 0
    for cell in group.cells:
        ranked = sorted((values[cell], label) for label, values in latencies.items()
                        if values.get(cell, 0) > 0)
        if not ranked:
            continue
        best_value, best = ranked[0]
        if is_ours(best):
            ours_wins += 1
        runner_value, runner = ranked[1] if len(ranked) > 1 else (None, None)
        rows.append((cell, [cell.cpu, cell.gpu,
                            f"**{code(best)}**" if is_ours(best) else code(best),
                            compact(best_value), code(runner) if runner else MISSING,
                            format_ratio(safe_ratio(runner_value, best_value))]))
    if not rows:
        return lines + [f"Note: no entry has the counter `{spec.latency}`; table skipped.", ""]
    lines += [f"Lowest {spec.latency_unit} per cell; ours in bold. One of ours is best in "
              f"{ours_wins} of {len(rows)} cells.", ""]
    header = ["CPU threads", "GPU", "best", spec.latency_unit, "runner-up",
              "runner-up ÷ best"]
    return lines + sink.place(f"{group.title}: best implementation per cell", header,
                              rows) + [""]


def missing_counter_notes(group):
    """Say which entries lack counters the section uses, so blank cells are explained."""
    spec = group.spec
    wanted = [spec.latency, spec.throughput] + (["cpu_share", "jain"] if spec.fairness else [])
    notes = []
    for counter in wanted:
        lacking = sorted(entry.name for by_cell in group.series.values()
                         for entry in by_cell.values() if entry.counter(counter) is None)
        if lacking:
            notes.append(f"- Note: {plural(len(lacking), 'entry', 'entries')} without the "
                         f"counter `{counter}` (first: `{lacking[0]}`).")
    return notes


def group_section(group, groups, limits, out_dir, sm_count):
    """Markdown and PNGs for one family / N / mode."""
    spec = group.spec
    sink = TableSink(out_dir, group.slug, group.title, sm_count)
    cells = group.cells
    lines = [f"## {group.title}", "",
             f"{plural(len(group.series), 'implementation')} ({len(group.ours())} ours, "
             f"{plural(len(group.peers()), 'peer')}) over {plural(len(cells), 'cell')} "
             f"(CPU threads {sorted({c.cpu for c in cells})}, GPU blocks "
             f"{sorted({c.blocks for c in cells})}).", ""]
    notes = missing_counter_notes(group)
    if notes:
        lines += notes + [""]
    plots = [("Latency heatmap", f"{group.slug}_heatmap.png", plot_heatmaps,
              f"{spec.latency_label} per cell and implementation"),
             ("Throughput vs GPU blocks", f"{group.slug}_throughput.png", plot_throughput,
              f"{spec.throughput_label}")]
    if spec.fairness:
        plots.append(("Fairness in mixed cells", f"{group.slug}_fairness.png", plot_fairness,
                      "CPU share and Jain index"))
    for heading, filename, plot, alt in plots:
        lines += [f"### {heading}", ""]
        skipped = plot(group, out_dir / filename)
        if skipped:
            lines += [f"Note: {skipped}.", ""]
        else:
            lines += [f"![{group.title}: {alt}]({filename})", ""]
    lines += ratio_section(group, groups, limits, sink)
    lines += best_section(group, sink)
    sink.write()
    return lines


def context_section(context):
    """The machine and run settings the numbers belong to."""
    def value(key, suffix=""):
        found = context.get(key)
        return MISSING if found in (None, "") else f"{found}{suffix}"

    def window():
        """window_ms comes as std::to_string(double), e.g. '100.000000'."""
        found = context.get("window_ms")
        try:
            return f"{float(found):g} ms"
        except (TypeError, ValueError):
            return value("window_ms", " ms")

    rows = [("GPU", value("gpu_name")), ("Compute capability", value("compute_capability")),
            ("Multiprocessors (SMs)", value("multiprocessors")),
            ("Host native atomics", value("host_native_atomic_supported")),
            ("Concurrent managed access", value("concurrent_managed_access")),
            ("Pageable memory access", value("pageable_memory_access")),
            ("CPU-GPU topology", value("topology")), ("Placement", value("placement")),
            ("Measurement window", window()), ("Cell set", value("set")),
            ("Host", value("host_name")), ("CPUs", value("num_cpus")),
            ("CPU clock", value("mhz_per_cpu", " MHz")),
            ("Google Benchmark library build (its own, not the cases')", value("library_build_type")),
            ("Caches", format_caches(context.get("caches")))]
    return ["## Machine", ""] + markdown_table(["", "value"], rows) + [""]


def format_caches(caches):
    """'L1 Data 48 KiB (shared by 2)' and so on, from Google Benchmark's cache list."""
    if not isinstance(caches, list) or not caches:
        return MISSING
    parts = []
    for cache in caches:
        if isinstance(cache, dict):
            size = cache.get("size", 0)
            size_text = f"{size // 1024} KiB" if isinstance(size, int) else str(size)
            parts.append(f"L{cache.get('level', '?')} {cache.get('type', '')} {size_text} "
                         f"(shared by {cache.get('num_sharing', '?')})")
    return ", ".join(parts) if parts else MISSING


def failures_section(entries):
    """Every cell that reported an error, with the binary's message."""
    failed = sorted((e for e in entries if e.error is not None), key=lambda e: e.name)
    lines = ["## Failed and skipped cells", ""]
    if not failed:
        return lines + ["None: every cell ran.", ""]
    rows = [[f"`{e.name}`", e.error] for e in failed]
    return lines + [f"{plural(len(failed), 'cell')} did not run; left out of the plots and "
                    "tables.", ""] + markdown_table(["benchmark", "error message"], rows) + [""]


def sm_count(context):
    """The GPU's multiprocessor count from the context, or None when absent."""
    text = str(context.get("multiprocessors", ""))
    return int(text) if text.isdigit() else None


def build_report(context, entries, notes, out_dir, command, title, anchors_path=None):
    """The whole report.md text; writes the plots and side tables on the way."""
    lines = [f"# {title}", ""]
    gpu_note = str(context.get("gpu_note") or "").strip().rstrip(".")
    if gpu_note:
        lines += [f"> **No GPU: {gpu_note}.** This report therefore has only CPU cells "
                  "(0 GPU blocks): no GPU-only or mixed CPU+GPU results, no GPU-only peers and "
                  "no physical limits.", ""]
    lines += ["Produced by:", "", "```sh", command or "(command not given)", "```", "",
              f"Date: {context.get('date', MISSING)}", ""]
    groups = build_groups(entries)
    limits = MachineLimits(entries)
    failed = sum(e.error is not None for e in entries)
    families = sorted({e.family for e in entries})
    lines += [f"{len(entries)} benchmark entries ({failed} failed) in the families "
              f"{', '.join(families) if families else 'none'}. Latency is lower-is-better, "
              "throughput higher-is-better; names starting with `unisync.` are ours, the "
              "rest are peers.", ""]
    unknown = sorted({e.family for e in entries}
                     - set(CONTENTION_FAMILIES) - {MACHINE_FAMILY})
    if unknown:
        notes = notes + [f"entries of unknown families were left out: {', '.join(unknown)}."]
    if notes:
        lines += [f"- Note: {note}" for note in notes] + [""]
    lines += context_section(context)
    lines += machine_section(entries)
    lines += anchors_section(entries, anchors_path)
    for family in CONTENTION_FAMILIES:
        members = [g for g in groups if g.family == family]
        if not members:
            lines += [f"## {SPECS[family].heading}", "",
                      f"No successful `{family}` entries in the input; section omitted.", ""]
        for group in members:
            lines += group_section(group, groups, limits, out_dir, sm_count(context))
    lines += failures_section(entries)
    return "\n".join(lines).rstrip("\n") + "\n"


def anchors_section(entries, anchors_path):
    """Reference figures measured earlier on the same machine (anchors.json) beside this
    run's, with the note that says why they differ where they do."""
    if not anchors_path or not Path(anchors_path).exists():
        return []
    anchors = json.loads(Path(anchors_path).read_text(encoding="utf-8"))
    by_name = {e.name: e for e in entries if e.error is None}
    rows = []
    for anchor in anchors:
        entry = by_name.get(anchor["benchmark"])
        value = entry.counters.get(anchor["counter"]) if entry else None
        measured = value * anchor.get("scale", 1.0) if value is not None else None
        rows.append([anchor["quantity"], f"{compact(anchor['anchor'])} {anchor['unit']}",
                     f"{compact(measured)} {anchor['unit']}" if measured is not None else "not in this run",
                     format_ratio(safe_ratio(measured, anchor["anchor"])) if measured is not None else MISSING,
                     anchor.get("note", "")])
    return ["## This run against the reference figures", "",
            "The reference (anchor) figures were measured earlier on the same kind of machine "
            "(DESIGN.md §5 and the issues); the note says why a figure differs where it does.", ""] + \
        markdown_table(["quantity", "reference", "this run", "this run / reference", "note"], rows) + [""]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Write report.md and PNG plots from unisync's contention benchmark JSON.")
    parser.add_argument("--input", required=True,
                        help="Google Benchmark JSON written with --benchmark_out")
    parser.add_argument("--output", required=True, help="folder for report.md and the plots")
    parser.add_argument("--command", default="",
                        help="the command line that produced the JSON, quoted in the report")
    parser.add_argument("--title", default="unisync contention report", help="report title")
    parser.add_argument("--anchors", default=str(Path(__file__).with_name("anchors.json")),
                        help="reference figures to compare with (default: anchors.json beside this script)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        context, benchmarks = load_json(args.input)
    except InputError as error:
        print(f"make_report: error: {error}", file=sys.stderr)
        return 2
    entries, notes = load_entries(benchmarks)
    out_dir = Path(args.output)
    out_dir.mkdir(parents=True, exist_ok=True)
    report = build_report(context, entries, notes, out_dir, args.command, args.title, args.anchors)
    (out_dir / "report.md").write_text(report, encoding="utf-8")
    print(f"make_report: wrote {out_dir / 'report.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
