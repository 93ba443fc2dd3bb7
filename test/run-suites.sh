#!/usr/bin/env bash
# Runs test suites of a build folder, also a build folder copied to another machine (the
# GPU machine): CTest's files name the absolute source and build paths of the machine that
# configured them, so those paths are linked to the copy first.
#
#   test/run-suites.sh [build-dir] [ctest label regex] [per-test timeout s] [test name regex]
# Logs and a JUnit report go to $OUT (default: build-dir/test-logs).
# The test lists are discovered at test time by this machine's CMake modules: before
# copying a build folder, run `ctest --test-dir build-dir -N` here once so they are current.
set -euo pipefail

build=${1:-build/release}
labels=${2:-host|device|mixed}
per_test_timeout=${3:-300}
names=${4:-.}
out=${OUT:-$build/test-logs}
mkdir -p "$out"

configured_source=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
configured_build=$(sed -n 's/^CMAKE_CACHEFILE_DIR:INTERNAL=//p' "$build/CMakeCache.txt")
if [ "$configured_source" != "$PWD" ] && [ ! -e "$configured_source" ]; then
  mkdir -p "$(dirname "$configured_source")"
  ln -s "$PWD" "$configured_source"
fi
if [ ! -e "$configured_build" ]; then
  mkdir -p "$(dirname "$configured_build")"
  ln -s "$(cd "$build" && pwd)" "$configured_build"
fi

ctest --test-dir "$build" -L "$labels" -R "$names" --timeout "$per_test_timeout" --output-on-failure \
  --output-junit "$(cd "$out" && pwd)/junit.xml" 2>&1 | tee "$out/ctest.log"
