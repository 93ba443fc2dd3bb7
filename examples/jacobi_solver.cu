// A persistent Jacobi solver whose iterations are separated by a unisync barrier, checked
// against a host reference and against the two alternatives (grid.sync(), a launch per
// iteration). Usage: unisync_example_jacobi_solver [n] [iterations].
// Exit status: 0 when every method matches the reference, 1 when one does not, 77 without
// a GPU.

#include "jacobi_solver.cuh"

#include <unisync/capabilities.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv)
{
  if (!unisync::gpu_available()) return std::puts("no GPU: nothing to solve on"), 77;
  int const n = argc > 1 ? std::atoi(argv[1]) : 130;
  int const iterations = argc > 2 ? std::atoi(argv[2]) : 100;
  std::vector<float> const expected = jacobi::host_reference(n, iterations);

  jacobi::solver solver(n);
  int status = 0;
  for (jacobi::method const chosen :
       {jacobi::method::unisync_barrier, jacobi::method::grid_sync, jacobi::method::relaunch}) {
    solver.reset(nullptr);
    solver.launch(chosen, iterations, nullptr);
    jacobi::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    // The same additions in the same order on both sides: only contraction may differ.
    float const difference = jacobi::largest_difference(solver.result(iterations), expected);
    bool const matches = difference <= 1e-5f;
    std::printf("%-16s %d x %d, %d iterations, %d blocks: largest difference %.3g %s\n", jacobi::name_of(chosen), n, n,
                iterations, solver.persistent_blocks(), difference, matches ? "(matches)" : "(WRONG)");
    if (!matches) status = 1;
  }
  return status;
}
