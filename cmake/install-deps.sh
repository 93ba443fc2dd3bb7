#!/usr/bin/env bash
# Installs the Debian packages unisync builds, tests and reports with, skipping those
# already installed. Needs root (or sudo). The CUDA Toolkit itself is expected under
# /usr/local/cuda (or wherever CUDAToolkit_ROOT points); it is not a Debian package here.
set -euo pipefail

packages=(
  cmake g++ make pkg-config binutils   # build; objdump reads library SONAMEs
  libgtest-dev                         # tests
  libbenchmark-dev                     # contention benchmarks
  libhwloc-dev                         # topology and thread pinning
  python3 python3-matplotlib           # the report's plots
  doxygen                              # the API reference (docs target and its test)
  spin                                 # model checking of the algorithms
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "unisync: every dependency is installed"
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    echo "unisync: missing ${missing[*]}; run this script as root to install them" >&2
    exit 1
  fi
fi
echo "unisync: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
