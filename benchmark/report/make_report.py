#!/usr/bin/env python3
"""Contention report generator for unisync.

Reads the Google Benchmark JSON (--benchmark_out) that the contention benchmark binary
writes and turns it into report.md plus PNG plots in one output folder: the machine
context, the physical limits (machine family), and per family (locks, semaphores per
permit count N, barriers and latches per arrival mode) latency heatmaps, throughput curves, fairness
plots, ratio tables against the peers and the physical limits, and the best
implementation per cell. The work is done by the contention_report package beside this
script; this is its command line.

Usage:
    make_report.py --input results.json --output DIR [--command "..."] [--title "..."]

The input may be xz-compressed (results.json.xz).
"""

import argparse
import sys
from pathlib import Path

from contention_report.results import InputError, load_entries, load_json
from contention_report.sections import build_report

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
