#pragma once

#include <unisync/capabilities.hpp>

#include <string>
#include <vector>

namespace unisync {

/**
 * @brief The host's processor topology as hwloc sees it, and the CPUs nearest a GPU.
 */
struct topology_summary {
  /// Processor packages (sockets).
  unsigned packages = 0;
  /// Physical cores.
  unsigned cores = 0;
  /// Processing units (hardware threads).
  unsigned processing_units = 0;
  /// NUMA nodes.
  unsigned numa_nodes = 0;
  /// OS indices of the processing units nearest the GPU (its PCIe root's local CPUs);
  /// every processing unit when hwloc cannot tell or no GPU is available.
  std::vector<unsigned> cpus_near_gpu;
  /// One line for reports: "1 package, 16 cores, 16 PUs, 1 NUMA node; near GPU 0: 0-15".
  std::string description;
};

/// Describes the host and the CPUs nearest `device` (the current device by default).
/// @throw unisync::error when hwloc cannot load the topology.
[[nodiscard]] topology_summary describe_topology(int device = current_device);

/// Binds the calling thread to the processing unit with OS index `cpu`.
/// @throw unisync::error when the binding fails (an index the process may not use).
void pin_this_thread(unsigned cpu);

}  // namespace unisync
