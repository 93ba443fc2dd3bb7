#pragma once
// GPU-only barrier peers: cooperative groups' grid.sync() (a cooperative launch) and the
// kernel boundary itself (relaunching an empty kernel), in the GPU-only barrier cells.

#include "../mix/cell.hpp"

#include <vector>

namespace unisync::bench {

void declare_grid_barrier_peers(std::vector<mix_cell> const& cells);

}  // namespace unisync::bench
