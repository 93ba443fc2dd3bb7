"""Load and parse: Google Benchmark JSON in, one Entry per benchmark out.

Names follow the contention binary's schema, family/key:value/..., and every entry of a
contention family sits in one Cell of the CPU-threads × GPU-configuration grid.
"""

import json
import lzma
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .formatting import plural

CONTENTION_FAMILIES = ("lock", "shared_mutex", "semaphore", "barrier", "latch")
MACHINE_FAMILY = "machine"
# Google Benchmark appends these after the schema ("iterations:1", "manual_time", ...).
BENCHMARK_SUFFIX_KEYS = {"iterations", "repeats", "min_time", "min_warmup_time", "threads"}
BENCHMARK_SUFFIX_WORDS = {"manual_time", "real_time", "process_time"}


class InputError(Exception):
    """The input is absent or is not Google Benchmark JSON; the message says which."""


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
    # Counter -> (smallest, largest) over the repetitions, for entries that ran more than once.
    spreads: dict = field(default_factory=dict)

    def counter(self, key):
        """The counter's value, or None when the binary did not write it."""
        return self.counters.get(key)

    def counter_range(self, key):
        """(smallest, largest) of the counter over the repetitions, or None when it ran once."""
        return self.spreads.get(key)

    @property
    def cell(self):
        blocks, threads = parse_gpu(self.params["gpu"])
        return Cell(int(self.params["cpu"]), blocks, threads)


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
    """Read the file (xz-compressed when its name ends in .xz, as large committed runs are)
    and check it has Google Benchmark's shape, so later steps can trust it."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"input file {path} does not exist")
    try:
        raw = lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except lzma.LZMAError as error:
        raise InputError(f"{path} is not xz-compressed: {error}") from error
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
            by_key = {key: [s[key] for s in samples if key in s] for key in keys}
            counters = {key: statistics.median(values) for key, values in by_key.items()}
            spreads = {key: (min(values), max(values)) for key, values in by_key.items()
                       if len(values) > 1}
            entries.append(Entry(schema_name, parsed.family, parsed.params, counters,
                                 spreads=spreads))
        else:
            message = str(runs[0].get("error_message") or "error_occurred without a message")
            entries.append(Entry(schema_name, parsed.family, parsed.params, {}, message))
    if repeated:
        notes.append(f"{plural(repeated, 'entry', 'entries')} ran more than once; the median "
                     "of each counter is shown.")
    return entries, notes
