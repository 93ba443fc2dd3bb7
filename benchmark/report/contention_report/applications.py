"""The Applications section: workloads users share primitives for (examples/*.cuh), each
against the alternatives they have today, with a plot per workload (ours solid,
alternatives dashed) and a table of our best against the best alternative."""

from collections import defaultdict

import matplotlib.pyplot as plt

from .formatting import MISSING, compact, format_ratio
from .groups import is_ours
from .plots import legend_below, save, series_styles
from .tables import markdown_table

APPLICATION_FAMILY = "application"


def series_label(entry):
    """The implementation, with the batch size of the batched-launch alternative and the
    size of a work queue's ring other than the default one."""
    for key, word in (("batch", "batch"), ("ring", "ring of")):
        if key in entry.params:
            return f"{entry.params['impl']} ({word} {entry.params[key]})"
    return entry.params["impl"]


def ratio_text(ours, theirs):
    return format_ratio(ours / theirs) if ours and theirs else MISSING


def best_of(entries, counter, mine):
    """The entry with the highest `counter` among ours (mine=True) or the alternatives."""
    chosen = [e for e in entries if is_ours(series_label(e)) == mine and e.counter(counter)]
    return max(chosen, key=lambda e: e.counter(counter), default=None)


def plot_series(ax, entries, x_of, counter, styles):
    """One line per implementation: `counter` against x_of(entry)."""
    lines = defaultdict(list)
    for entry in entries:
        value = entry.counter(counter)
        if value:
            lines[series_label(entry)].append((x_of(entry), value))
    for label in sorted(lines, key=lambda text: (not is_ours(text), text)):
        points = sorted(lines[label])
        style = styles[label]
        ax.plot([x for x, _ in points], [y for _, y in points], label=label, color=style["color"],
                linestyle=style["linestyle"], marker=style["marker"], markersize=4)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)


def parameter(key):
    """x_of for a numeric name parameter."""
    return lambda entry: float(entry.params[key])


def gpu_blocks(entry):
    return float(entry.params["gpu"].split("x")[0])


def panels_plot(panels, x_of, x_label, counter, y_label, path):
    """One panel per (title, entries); the legend is shared below them."""
    labels = sorted({series_label(e) for _, members in panels for e in members},
                    key=lambda text: (not is_ours(text), text))
    styles = series_styles(labels)
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (title, members) in zip(axes[0], panels):
        plot_series(ax, members, x_of, counter, styles)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
    handles, names = [], []
    for ax in axes[0]:
        for handle, name in zip(*ax.get_legend_handles_labels()):
            if name not in names:
                handles.append(handle)
                names.append(name)
    legend_below(fig, handles, names)
    save(fig, path)


def solver_section(entries, out_dir):
    members = [e for e in entries if e.params.get("workload") == "solver"]
    if not members:
        return []
    panels_plot([("iterations/s, 100 iterations per solve", members)], parameter("size"), "grid side (n for n × n)",
                "iterations_per_s", "iterations/s", out_dir / "application_solver.png")
    rows = []
    for size in sorted({int(e.params["size"]) for e in members}):
        at = [e for e in members if int(e.params["size"]) == size]
        ours, theirs = best_of(at, "iterations_per_s", True), best_of(at, "iterations_per_s", False)
        by_impl = {series_label(e): e.counter("iterations_per_s") for e in at}
        rows.append([f"{size}²", compact(ours.counter("iterations_per_s")) if ours else MISSING,
                     compact(by_impl.get("cg.grid_sync")), compact(by_impl.get("kernel_relaunch")),
                     series_label(theirs) if theirs else MISSING,
                     ratio_text(ours and ours.counter("iterations_per_s"),
                                theirs and theirs.counter("iterations_per_s"))])
    return ["### Persistent Jacobi solver", "",
            "A 5-point Jacobi stencil, 100 iterations in one persistent kernel separated by our "
            "device-scope barrier (block arrival), by `grid.sync()`, or by a kernel launch per "
            "iteration (examples/jacobi_solver.cuh).", "",
            "![solver](application_solver.png)", ""] + markdown_table(
        ["grid", "unisync.barrier it/s", "grid.sync it/s", "relaunch it/s", "best alternative",
         "ours ÷ best alternative"], rows) + [""]


def cell_text(entry):
    return f"{entry.params['cpu']} CPU × {entry.params['gpu'].split('x')[0]} blocks"


def table_section(entries, out_dir):
    members = [e for e in entries if e.params.get("workload") == "table"]
    if not members:
        return []
    by_cell = defaultdict(list)
    for entry in members:
        by_cell[cell_text(entry)].append(entry)
    cells = sorted(by_cell, key=lambda text: [int(word) for word in text.split() if word.isdigit()])
    panels_plot([(f"{cell}", by_cell[cell]) for cell in cells], parameter("stripes"), "stripes", "ops_per_s", "operations/s",
                out_dir / "application_table.png")
    rows = []
    for cell in cells:
        for stripes in sorted({int(e.params["stripes"]) for e in by_cell[cell]}):
            at = [e for e in by_cell[cell] if int(e.params["stripes"]) == stripes]
            ours, theirs = best_of(at, "ops_per_s", True), best_of(at, "ops_per_s", False)

            def sides(entry):
                if entry is None:
                    return MISSING
                total, share = entry.counter("ops_per_s") or 0, entry.counter("cpu_share") or 0
                return f"{compact(total * share)} / {compact(total * (1 - share))}"

            def wait(entry):
                return compact(entry.counter("max_wait_us")) if entry else MISSING

            rows.append([cell, str(stripes),
                         f"{series_label(ours)} ({ours.params.get('lock_bytes', '?')} B)" if ours else MISSING,
                         sides(ours), wait(ours),
                         f"{series_label(theirs)} ({theirs.params.get('lock_bytes', '?')} B)" if theirs else MISSING,
                         sides(theirs), wait(theirs),
                         ratio_text(ours and ours.counter("ops_per_s"), theirs and theirs.counter("ops_per_s"))])
    return ["### Shared hash table under striped locks", "",
            "CPU threads and GPU blocks (one thread each) add and look up keys in one "
            "open-addressing table of 2^20 slots in managed memory, each stripe of slots under "
            "its own lock (examples/striped_table.cuh). An operation is lock, probe, unlock; "
            "its longest latency is the longest wait. Bytes are the lock's size per stripe.", "",
            "![table](application_table.png)", ""] + markdown_table(
        ["cell", "stripes", "our best (bytes)", "ops/s CPU / GPU", "longest op µs", "best alternative (bytes)",
         "ops/s CPU / GPU", "longest op µs", "ours ÷ alternative"], rows) + [""]


def queue_section(entries, out_dir):
    members = [e for e in entries if e.params.get("workload") == "queue"]
    if not members:
        return []
    panels = []
    for direction in ("cpu_to_gpu", "gpu_to_cpu"):
        for cpu in sorted({int(e.params["cpu"]) for e in members}):
            at = [e for e in members if e.params["direction"] == direction and int(e.params["cpu"]) == cpu
                  and e.params.get("work_ns") == "0"]
            if at:
                title = (f"{cpu} CPU producers → GPU" if direction == "cpu_to_gpu"
                         else f"GPU producers → {cpu} CPU consumers")
                panels.append((title, at))
    if panels:
        panels_plot(panels, gpu_blocks, "GPU blocks", "items_per_s", "items/s (0 µs work)",
                    out_dir / "application_queue.png")
    rows = []
    keys = sorted({(e.params["direction"], int(e.params["cpu"]), int(e.params["gpu"].split("x")[0]),
                    int(e.params["work_ns"])) for e in members})
    for direction, cpu, blocks, work in keys:
        at = [e for e in members if (e.params["direction"], int(e.params["cpu"]),
                                     int(e.params["gpu"].split("x")[0]), int(e.params["work_ns"]))
              == (direction, cpu, blocks, work)]
        ours, theirs = best_of(at, "items_per_s", True), best_of(at, "items_per_s", False)

        def latency(entry):
            if entry is None:
                return MISSING
            return f"{compact(entry.counter('latency_median_us'))} / {compact(entry.counter('latency_p99_us'))}"

        rows.append([direction.replace("_", " "), str(cpu), str(blocks), str(work // 1000),
                     compact(ours.counter("items_per_s")) if ours else MISSING, latency(ours),
                     series_label(theirs) if theirs else MISSING,
                     compact(theirs.counter("items_per_s")) if theirs else MISSING, latency(theirs),
                     ratio_text(ours and ours.counter("items_per_s"), theirs and theirs.counter("items_per_s"))])
    return ["### CPU ↔ GPU work queue", "",
            "A bounded ring of 1024 slots (64-byte items) in memory the host prefers, two "
            "counting semaphores (free and filled slots), producers on one side and one "
            "consumer per GPU block or per CPU thread on the other (examples/work_queue.cuh); "
            "against the same ring on libcu++'s semaphores and against a copy and a kernel "
            "launch per batch built on the host. Latency is from the start of the enqueue to "
            "the start of the item's work (median / 99th percentile, µs), on the GPU's clock "
            "(the host's is offset by a round-trip probe, to about a microsecond).", ""] + \
        (["![queue](application_queue.png)", ""] if panels else []) + markdown_table(
        ["direction", "CPU threads", "GPU blocks", "work µs", "ours items/s", "ours latency µs",
         "best alternative", "its items/s", "its latency µs", "ours ÷ alternative"], rows) + [""]


def applications_section(entries, out_dir):
    """The section, or nothing when the run has no application entries."""
    members = [e for e in entries if e.family == APPLICATION_FAMILY and e.error is None]
    if not members:
        return []
    return (["## Applications", "",
             "Whole workloads, each against what a user would do without unisync, in the same "
             "run. Ours are solid lines, alternatives dashed.", ""]
            + solver_section(members, out_dir) + table_section(members, out_dir)
            + queue_section(members, out_dir))
