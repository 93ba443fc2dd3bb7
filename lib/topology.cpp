#include <unisync/topology.hpp>

#include <unisync/capabilities.hpp>
#include <unisync/error.hpp>

#include "cuda_call.hpp"

#include <hwloc.h>
#include <hwloc/cudart.h>

#include <memory>
#include <mutex>
#include <string>

namespace unisync {
namespace {

struct topology_deleter {
  void operator()(hwloc_topology* topology) const noexcept { hwloc_topology_destroy(topology); }
};
struct bitmap_deleter {
  void operator()(hwloc_bitmap_s* bitmap) const noexcept { hwloc_bitmap_free(bitmap); }
};
using bitmap_ptr = std::unique_ptr<hwloc_bitmap_s, bitmap_deleter>;

// Loaded once: hwloc topologies are safe to query from several threads once loaded.
hwloc_topology_t host_topology()
{
  static std::unique_ptr<hwloc_topology, topology_deleter> const topology = [] {
    hwloc_topology_t loaded = nullptr;
    if (hwloc_topology_init(&loaded) != 0 || hwloc_topology_load(loaded) != 0) {
      if (loaded != nullptr) hwloc_topology_destroy(loaded);
      throw error("unisync: hwloc could not load the host topology.");
    }
    return std::unique_ptr<hwloc_topology, topology_deleter>(loaded);
  }();
  return topology.get();
}

unsigned count_of(hwloc_topology_t topology, hwloc_obj_type_t type)
{
  int const count = hwloc_get_nbobjs_by_type(topology, type);
  return count > 0 ? static_cast<unsigned>(count) : 0u;
}

std::string plural(unsigned count, char const* noun)
{
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

}  // namespace

topology_summary describe_topology(int device)
{
  hwloc_topology_t const topology = host_topology();
  topology_summary summary;
  summary.packages = count_of(topology, HWLOC_OBJ_PACKAGE);
  summary.cores = count_of(topology, HWLOC_OBJ_CORE);
  summary.processing_units = count_of(topology, HWLOC_OBJ_PU);
  summary.numa_nodes = count_of(topology, HWLOC_OBJ_NUMANODE);

  bitmap_ptr near(hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topology)));
  std::string nearest_to = "all CPUs (no GPU)";
  if (gpu_available()) {
    int const gpu = detail::resolve_device(device);
    bitmap_ptr local(hwloc_bitmap_alloc());
    // Unknown locality (no sysfs entry, as in some VMs) leaves every CPU in the set.
    if (hwloc_cudart_get_device_cpuset(topology, gpu, local.get()) == 0 &&
        hwloc_bitmap_intersects(local.get(), near.get())) {
      hwloc_bitmap_and(near.get(), near.get(), local.get());
      nearest_to = "near GPU " + std::to_string(gpu);
    } else {
      nearest_to = "near GPU " + std::to_string(gpu) + " (locality unknown: all CPUs)";
    }
  }
  unsigned cpu = 0;
  hwloc_bitmap_foreach_begin(cpu, near.get()) summary.cpus_near_gpu.push_back(cpu);
  hwloc_bitmap_foreach_end();

  char* list = nullptr;
  hwloc_bitmap_list_asprintf(&list, near.get());
  summary.description = plural(summary.packages, "package") + ", " + plural(summary.cores, "core") + ", " +
                        plural(summary.processing_units, "PU") + ", " + plural(summary.numa_nodes, "NUMA node") +
                        "; " + nearest_to + ": " + (list != nullptr ? list : "?");
  std::free(list);
  return summary;
}

void pin_this_thread(unsigned cpu)
{
  hwloc_topology_t const topology = host_topology();
  bitmap_ptr set(hwloc_bitmap_alloc());
  hwloc_bitmap_only(set.get(), cpu);
  if (hwloc_set_cpubind(topology, set.get(), HWLOC_CPUBIND_THREAD) != 0) {
    throw error("unisync::pin_this_thread: could not bind the calling thread to CPU " + std::to_string(cpu) +
                "; pass an OS index from topology_summary::cpus_near_gpu.");
  }
}

}  // namespace unisync
