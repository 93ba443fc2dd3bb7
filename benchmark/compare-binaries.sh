#!/usr/bin/env bash
# Measures the same cases with several builds of the contention binary on one machine,
# interleaved round by round (A, B, A, B, ...), so that an A/B comparison of two versions
# of the code sees the same machine state and its drift. Each build must sit beside the
# shared libraries it was bundled with (copy it into a build's bin/ folder).
#
#   benchmark/compare-binaries.sh FILTER ROUNDS OUT_DIR NAME=BINARY [NAME=BINARY...]
#     FILTER   a --benchmark_filter regex (e.g. '^barrier/.*cpu:(0|1|15)/')
#     ROUNDS   how many times each build measures the cases
# Writes OUT_DIR/NAME.rK.json (Google Benchmark JSON) per build and round. Extra options for
# the binaries (e.g. --unisync_window_ms=50) go in UNISYNC_BENCH_ARGS; the full cell set is
# measured unless it sets --unisync_set=short.
set -euo pipefail

[ $# -ge 4 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
filter=$1
rounds=$2
out=$3
shift 3
mkdir -p "$out"
read -r -a extra <<<"${UNISYNC_BENCH_ARGS:-}"
for ((round = 1; round <= rounds; ++round)); do
  for build in "$@"; do
    name=${build%%=*}
    binary=${build#*=}
    echo "round $round: $name" >&2
    "$binary" --unisync_set=full "${extra[@]}" --benchmark_filter="$filter" \
      --benchmark_out="$out/$name.r$round.json" --benchmark_out_format=json >/dev/null
  done
done
