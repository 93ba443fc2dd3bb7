"""The PNG plots of one group: latency heatmaps, throughput curves and fairness lines.

Each plot function returns None when it wrote the file, else why it skipped it.
"""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402

from .formatting import compact, plural  # noqa: E402
from .groups import is_ours, series_order  # noqa: E402

DPI = 110


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
