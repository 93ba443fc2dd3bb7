"""The markdown sections of report.md, and the whole report assembled from them."""

import json
import re
from pathlib import Path

from .applications import APPLICATION_FAMILY, applications_section
from .formatting import MISSING, compact, format_ratio, plural
from .groups import (GRID_SYNC, GRID_SYNC_FAMILIES, SPECS, MachineLimits, build_groups, is_ours,
                     limit_for, safe_ratio)
from .plots import plot_fairness, plot_heatmaps, plot_throughput
from .results import CONTENTION_FAMILIES, MACHINE_FAMILY
from .tables import TableSink, markdown_table

def code(text):
    """Implementation names in backticks, so that underscores do not turn into emphasis."""
    return f"`{text}`"


def natural_key(text):
    """Sort key that orders '1x1' before '132x1' by comparing digit runs as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


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


def ratio_section(group, groups, limits, sink):
    """Per our implementation, a table of throughput ratios to each peer and to the limit."""
    spec = group.spec
    lines = ["### Ours vs peers and the physical limit", ""]
    ours = group.ours()
    peers = group.peers()
    if not ours:
        return lines + ["Note: no unisync implementation in this section; ratio tables skipped.",
                        ""]
    if group.family in GRID_SYNC_FAMILIES:
        unit = "phase" if group.family == "barrier" else "round"
        theirs = "" if group.family == "barrier" else " µs per phase"
        limit_header = f"µs/{unit} ÷ {GRID_SYNC}"
        limit_text = (f"`{limit_header}`: our µs per {unit} over {GRID_SYNC}'s{theirs} in the "
                      "same GPU configuration (same mode and CPU count where measured, else its "
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


# A series whose longest wait in a cell is above this is not counted as best there in the
# second count of best_section: a lock that starves its waiters is not best.
BOUNDED_WAIT_US = 10_000


def bounded_wins(group, latencies):
    """(cells where one of ours is best among series whose longest wait is bounded, cells
    with such a series), or None when no entry of the group reports its longest wait."""
    waits = {label: group.values(label, "max_wait_us") for label in group.series}
    if not any(waits.values()):
        return None
    ours, counted = 0, 0
    for cell in group.cells:
        ranked = sorted((values[cell], label) for label, values in latencies.items()
                        if values.get(cell, 0) > 0
                        and waits[label].get(cell, 0) <= BOUNDED_WAIT_US)
        if ranked:
            counted += 1
            ours += is_ours(ranked[0][1])
    return ours, counted


def close_calls(group, verdicts):
    """(cells compared, cells whose verdict is a close call) over the repetitions, or None
    when no series of the group ran more than once. `verdicts` is (cell, faster, slower)
    per cell: our best series and the best peer, in the order of their medians. A verdict
    is a close call unless the faster one's slowest repetition beat the other's fastest:
    each repetition places its object anew, and with one or eight GPU blocks the placement
    alone moves a case by up to 1.5x (benchmark/results/h200-one-block-placement)."""
    ranges = {label: group.ranges(label, group.spec.latency) for label in group.series}
    if not any(ranges.values()):
        return None
    compared, close = 0, []
    for cell, faster, slower in verdicts:
        faster_range, slower_range = ranges[faster].get(cell), ranges[slower].get(cell)
        if faster_range is None or slower_range is None:
            continue
        compared += 1
        if faster_range[1] >= slower_range[0]:
            close.append(cell)
    return compared, close


def best_section(group, sink):
    """Which implementation is fastest in each cell, and by how much over the runner-up."""
    spec = group.spec
    lines = ["### Best implementation per cell", ""]
    latencies = {label: group.values(label, spec.latency) for label in group.series}
    rows = []
    verdicts = []
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
        ours_best = next((label for _, label in ranked if is_ours(label)), None)
        peer_best = next((label for _, label in ranked if not is_ours(label)), None)
        if ours_best and peer_best:
            faster, slower = (ours_best, peer_best) if is_ours(best) else (peer_best, ours_best)
            verdicts.append((cell, faster, slower))
        rows.append((cell, [cell.cpu, cell.gpu,
                            f"**{code(best)}**" if is_ours(best) else code(best),
                            compact(best_value), code(runner) if runner else MISSING,
                            format_ratio(safe_ratio(runner_value, best_value))]))
    if not rows:
        return lines + [f"Note: no entry has the counter `{spec.latency}`; table skipped.", ""]
    lines += [f"Lowest {spec.latency_unit} per cell; ours in bold. One of ours is best in "
              f"{ours_wins} of {len(rows)} cells.", ""]
    bounded = bounded_wins(group, latencies)
    if bounded is not None:
        lines += [f"Counting only series whose longest wait in the cell is at most "
                  f"{BOUNDED_WAIT_US // 1000} ms: one of ours is best in {bounded[0]} of "
                  f"{bounded[1]} cells.", ""]
    close = close_calls(group, verdicts)
    if close is not None:
        compared, cells = close
        listed = "; the others are close calls: " + ", ".join(
            f"{cell.cpu} × {cell.gpu}" for cell in cells) if cells else ""
        lines += [f"Our best against the best peer, over the repetitions (each places its "
                  f"object anew): the faster one's slowest repetition beat the other's fastest "
                  f"in {compared - len(cells)} of {compared} cells{listed}.", ""]
    header = ["CPU threads", "GPU", "best", spec.latency_unit, "runner-up",
              "runner-up ÷ best"]
    return lines + sink.place(f"{group.title}: best implementation per cell", header,
                              rows) + [""]


# The release a mixed latch cell should stay within (last count_down to every waiter
# released), the goal our latch is judged against.
RELEASE_GOAL_US = 5


def release_section(group, sink):
    """Where a family's entries report release_us (latch rounds in cells with GPU actors):
    each series' release, median and 99th percentile, per cell, and how many mixed cells
    our best series keeps within the goal."""
    medians = {label: group.values(label, "release_us") for label in group.series}
    if not any(medians.values()):
        return []
    tails = {label: group.values(label, "release_p99_us") for label in group.series}
    labels = [label for label in group.series if medians[label]]
    rows = []
    mixed, within = 0, 0
    for cell in group.cells:
        if not any(cell in medians[label] for label in labels):
            continue
        ours = [medians[label][cell] for label in group.ours() if cell in medians[label]]
        if cell.is_mixed and ours:
            mixed += 1
            within += min(ours) <= RELEASE_GOAL_US
        rows.append((cell, [cell.cpu, cell.gpu] + [
            f"{compact(medians[label][cell])} / {compact(tails[label].get(cell))}"
            if cell in medians[label] else MISSING for label in labels]))
    lines = ["### Release: last count_down to last waiter released", "",
             "µs per round from the start of the round's last `count_down` to the return of its "
             "last wait, median / 99th percentile over the rounds; CPU and GPU stamps on one clock "
             "(the host's shifted onto the GPU's global timer by a round-trip probe, to about a "
             "microsecond). Measured in cells with GPU actors only.", ""]
    if mixed:
        lines += [f"Ours (the best of our series) releases within {RELEASE_GOAL_US} µs (median) "
                  f"in {within} of {mixed} mixed cells.", ""]
    header = ["CPU threads", "GPU"] + [f"{label} µs" for label in labels]
    return lines + sink.place(f"{group.title}: release", header, rows) + [""]


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


# What one operation of a family is, where its heading does not say it.
OPERATION_NOTES = {
    "shared_mutex": "Each operation draws, per actor, a shared section (lock_shared, one load of "
                    "the protected counter, unlock_shared) with the section's read probability, "
                    "else an exclusive one (lock, one increment, unlock). Series that have no "
                    "shared mode (locks) take every section exclusively: beside them, the shared "
                    "mutexes show what letting readers overlap buys.",
}


PLACEMENTS = {"host": "ordinary host memory (CPU-only cells)",
              "managed": "make_managed, no advice",
              "managed_advised": "make_managed with the type's own per-part advice"}


def placement_section(group):
    """Which placement each series ran in (the names' `place` key), so that a reader knows
    what a user of each type gets and what was compared."""
    rows = []
    for label, by_cell in group.series.items():
        places = sorted({entry.params.get("place", MISSING) for entry in by_cell.values()})
        rows.append([code(label), ", ".join(f"{place} ({PLACEMENTS[place]})" if place in PLACEMENTS else place
                                            for place in places)])
    return ["### Placement of each series", ""] + markdown_table(["series", "placement"], rows) + [""]


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
    if group.family in OPERATION_NOTES:
        lines += [OPERATION_NOTES[group.family], ""]
    notes = missing_counter_notes(group)
    if notes:
        lines += notes + [""]
    lines += placement_section(group)
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
    lines += release_section(group, sink)
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
                     - set(CONTENTION_FAMILIES) - {MACHINE_FAMILY, APPLICATION_FAMILY})
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
    lines += applications_section(entries, out_dir)
    lines += failures_section(entries)
    return "\n".join(lines).rstrip("\n") + "\n"


def anchors_section(entries, anchors_path):
    """Reference figures measured earlier on an H100 machine (anchors.json) beside this
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
            "The reference (anchor) figures were measured earlier on an H100 on PCIe (DESIGN.md §5 "
            "and the issues); the note says why a figure differs where it does. On another GPU "
            "the machine accounts for differences too.", ""] + \
        markdown_table(["quantity", "reference", "this run", "this run / reference", "note"], rows) + [""]
