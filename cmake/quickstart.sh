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
    cmake --workflow --preset test
    ;;
  *)
    echo "usage: cmake/quickstart.sh report [--full] | test" >&2
    exit 2
    ;;
esac
