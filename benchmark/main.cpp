// The contention report's benchmark binary: declares every case for this machine (CPU
// cells only without a GPU), adds the machine's description to the context, and runs
// Google Benchmark. Options of its own, before Google Benchmark's:
//   --unisync_set=short|full   which cells (default short)
//   --unisync_window_ms=N      measurement window per case (default 100)

#include "cases/cases.hpp"
#include "mix/harness.hpp"

#include <unisync/capabilities.hpp>
#include <unisync/topology.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace unisync::bench;

struct options {
  case_set set = case_set::short_set;
  double window_ms = 100;
};

/// Takes our options out of argv, leaving Google Benchmark's.
options take_options(int& argc, char** argv)
{
  options chosen;
  int kept = 1;
  for (int index = 1; index < argc; ++index) {
    std::string const argument = argv[index];
    if (argument == "--unisync_set=full") {
      chosen.set = case_set::full_set;
    } else if (argument == "--unisync_set=short") {
      chosen.set = case_set::short_set;
    } else if (argument.rfind("--unisync_window_ms=", 0) == 0) {
      chosen.window_ms = std::stod(argument.substr(std::strlen("--unisync_window_ms=")));
    } else {
      argv[kept++] = argv[index];
    }
  }
  argc = kept;
  return chosen;
}

std::string yes_no(bool value) { return value ? "1" : "0"; }

}  // namespace

int main(int argc, char** argv)
{
  options const chosen = take_options(argc, argv);
  grid_limits limits;
  limits.has_gpu = unisync::gpu_available();
  limits.max_cpu_threads = std::max(1u, std::thread::hardware_concurrency() - 1);

  unisync::topology_summary const topology = unisync::describe_topology();
  settings().window_seconds = chosen.window_ms * 1e-3;
  settings().cpus_near_gpu = topology.cpus_near_gpu;
  benchmark::AddCustomContext("topology", topology.description);
  benchmark::AddCustomContext("window_ms", std::to_string(chosen.window_ms));
  benchmark::AddCustomContext("set", chosen.set == case_set::full_set ? "full" : "short");
  benchmark::AddCustomContext("placement", "CPU-only cells: host memory; cells with GPU actors: as make_managed "
                                           "places the type (place:managed_advised: its own per-part advice; "
                                           "place:managed: no advice); machine limits: per case");
  if (limits.has_gpu) {
    unisync::gpu_capabilities const gpu = unisync::device_capabilities();
    limits.multiprocessors = static_cast<unsigned>(gpu.multiprocessor_count);
    benchmark::AddCustomContext("gpu_name", gpu.name);
    benchmark::AddCustomContext("compute_capability", std::to_string(gpu.compute_capability_major) + "." +
                                                          std::to_string(gpu.compute_capability_minor));
    benchmark::AddCustomContext("multiprocessors", std::to_string(gpu.multiprocessor_count));
    benchmark::AddCustomContext("host_native_atomic_supported", yes_no(gpu.host_native_atomic_supported));
    benchmark::AddCustomContext("concurrent_managed_access", yes_no(gpu.concurrent_managed_access));
    benchmark::AddCustomContext("pageable_memory_access", yes_no(gpu.pageable_memory_access));
  } else {
    benchmark::AddCustomContext("gpu_note", "No CUDA GPU (or driver) on this machine: only CPU-only cells ran. "
                                            "GPU-only and CPU+GPU cells need a GPU.");
  }

  declare_lock_cases(chosen.set, limits);
  declare_shared_mutex_cases(chosen.set, limits);
  declare_semaphore_cases(chosen.set, limits);
  declare_barrier_cases(chosen.set, limits);
  declare_application_cases(chosen.set, limits);
  declare_latch_cases(chosen.set, limits);
  if (limits.has_gpu) declare_machine_cases(chosen.set);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
