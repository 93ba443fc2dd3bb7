#include "cell.hpp"

#include <algorithm>

namespace unisync::bench {

std::vector<mix_cell> contention_grid(case_set set, grid_limits const& limits, unsigned gpu_threads)
{
  unsigned const most_cpus = std::max(1u, std::min(15u, limits.max_cpu_threads));
  std::vector<unsigned> cpu_counts;
  std::vector<unsigned> block_counts{0};
  unsigned const sms = limits.multiprocessors;
  if (set == case_set::full_set) {
    cpu_counts = {0, 1, 2, 4, 8, most_cpus};
    if (limits.has_gpu) block_counts = {0, 1, 8, std::max(1u, sms / 4), sms, 2 * sms, 4 * sms};
  } else {
    cpu_counts = {0, 1, 4, most_cpus};
    if (limits.has_gpu) block_counts = {0, 1, sms, 4 * sms};
  }
  std::sort(cpu_counts.begin(), cpu_counts.end());
  cpu_counts.erase(std::unique(cpu_counts.begin(), cpu_counts.end()), cpu_counts.end());
  std::vector<mix_cell> cells;
  for (unsigned cpus : cpu_counts) {
    if (cpus > limits.max_cpu_threads) continue;
    for (unsigned blocks : block_counts) {
      if (cpus == 0 && blocks == 0) continue;
      cells.push_back(mix_cell{cpus, blocks, blocks == 0 ? 0 : gpu_threads});
    }
  }
  return cells;
}

}  // namespace unisync::bench
