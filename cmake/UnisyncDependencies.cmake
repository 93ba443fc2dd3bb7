# Finds what unisync builds with. Every missing dependency fails configure with the Debian
# package that provides it; cmake/install-deps.sh installs them all.

set(UNISYNC_MIN_CCCL_VERSION 2.2.0)

function(unisync_missing what debian_package)
  message(FATAL_ERROR
    "unisync: ${what} was not found. On Debian install it with "
    "'apt-get install ${debian_package}' or run 'sudo cmake/install-deps.sh'.")
endfunction()

find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  message(FATAL_ERROR
    "unisync: the CUDA Toolkit was not found. Install it under /usr/local/cuda or pass "
    "-DCUDAToolkit_ROOT=<toolkit>.")
endif()

# CCCL (libcu++) ships inside the toolkit; CUDA 13 keeps it under include/cccl.
find_path(UNISYNC_CCCL_INCLUDE_DIR cuda/std/__cccl/version.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS}
  PATH_SUFFIXES cccl
  NO_DEFAULT_PATH)
if(NOT UNISYNC_CCCL_INCLUDE_DIR)
  message(FATAL_ERROR
    "unisync: CCCL (libcu++) headers were not found in the CUDA Toolkit at "
    "${CUDAToolkit_INCLUDE_DIRS}. unisync needs CCCL ${UNISYNC_MIN_CCCL_VERSION} or newer "
    "(CUDA 12.3+).")
endif()
file(STRINGS "${UNISYNC_CCCL_INCLUDE_DIR}/cuda/std/__cccl/version.h" _cccl_version_line
  REGEX "#define CCCL_VERSION [0-9]+")
string(REGEX REPLACE ".*CCCL_VERSION ([0-9]+).*" "\\1" _cccl_version_number "${_cccl_version_line}")
math(EXPR _cccl_major "${_cccl_version_number} / 1000000")
math(EXPR _cccl_minor "(${_cccl_version_number} / 1000) % 1000")
math(EXPR _cccl_patch "${_cccl_version_number} % 1000")
set(UNISYNC_CCCL_VERSION "${_cccl_major}.${_cccl_minor}.${_cccl_patch}")
if(UNISYNC_CCCL_VERSION VERSION_LESS UNISYNC_MIN_CCCL_VERSION)
  message(FATAL_ERROR
    "unisync: CCCL ${UNISYNC_CCCL_VERSION} at ${UNISYNC_CCCL_INCLUDE_DIR} is older than the "
    "${UNISYNC_MIN_CCCL_VERSION} unisync needs (scoped cuda::atomic_ref, <nv/target>). "
    "Install a newer CUDA Toolkit.")
endif()
message(STATUS "unisync: CCCL ${UNISYNC_CCCL_VERSION} at ${UNISYNC_CCCL_INCLUDE_DIR}")

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  unisync_missing("pkg-config" "pkg-config")
endif()
pkg_check_modules(hwloc QUIET IMPORTED_TARGET hwloc)
if(NOT hwloc_FOUND)
  unisync_missing("hwloc (topology and thread pinning)" "libhwloc-dev")
endif()

find_package(Threads REQUIRED)

if(UNISYNC_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    unisync_missing("GoogleTest" "libgtest-dev")
  endif()
  include(GoogleTest)
  find_program(UNISYNC_SPIN spin)
  if(NOT UNISYNC_SPIN)
    unisync_missing("the spin model checker (test/models)" "spin")
  endif()
endif()

if(UNISYNC_BUILD_BENCHMARKS AND NOT UNISYNC_HOST_TESTS_ONLY)
  find_package(benchmark QUIET)
  if(NOT benchmark_FOUND)
    unisync_missing("Google Benchmark" "libbenchmark-dev")
  endif()
  # matplotlib comes from Debian's python3-matplotlib: prefer Debian's interpreter over
  # one that a version manager put first on PATH.
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 QUIET COMPONENTS Interpreter)
  if(Python3_FOUND)
    execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import matplotlib"
      RESULT_VARIABLE _matplotlib_missing OUTPUT_QUIET ERROR_QUIET)
  endif()
  if(NOT Python3_FOUND OR _matplotlib_missing)
    unisync_missing("Python 3 with matplotlib (the report generator)" "python3-matplotlib")
  endif()
endif()
