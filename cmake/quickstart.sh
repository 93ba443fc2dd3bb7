#!/usr/bin/env bash
# The README's two commands. Installs what is missing, configures the release preset,
# builds, and then either writes the contention report or runs the tests.
#
#   cmake/quickstart.sh report [--full]   contention report (short set; --full: every cell)
#   cmake/quickstart.sh test              the test suites (GPU tests skip without a GPU)
set -euo pipefail
cd "$(dirname "$0")/.."

job=${1:-}
"$(dirname "$0")/install-deps.sh"
case "$job" in
  report)
    report_set=short
    [ "${2:-}" = "--full" ] && report_set=full
    cmake --preset release -DUNISYNC_REPORT_SET="$report_set"
    cmake --build --preset report
    echo "unisync: the report is at $(pwd)/build/release/report/report.md"
    ;;
  test)
    # The model searches are single-threaded: one CTest job per core, and per 7 GiB of
    # available memory (the largest searches hold up to 6 GiB), unless
    # CTEST_PARALLEL_LEVEL says otherwise. The suites run alone (RUN_SERIAL).
    if [ -z "${CTEST_PARALLEL_LEVEL:-}" ]; then
      jobs=$(nproc)
      jobs_by_memory=$(awk '/^MemAvailable:/ { print int($2 / (7 * 1048576)) }' /proc/meminfo)
      [ "${jobs_by_memory:-1}" -lt "$jobs" ] && jobs=${jobs_by_memory:-1}
      [ "$jobs" -ge 1 ] || jobs=1
      export CTEST_PARALLEL_LEVEL=$jobs
      echo "unisync: running the tests with $jobs CTest jobs"
    fi
    cmake --workflow --preset test
    ;;
  *)
    echo "usage: cmake/quickstart.sh report [--full] | test" >&2
    exit 2
    ;;
esac
