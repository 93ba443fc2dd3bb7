// The tile overloads that tell a group the leader's result (try_lock) or count the group's
// threads (count_down, arrive_and_wait) with a vote, which orders no memory, and so must
// sync the tile as well: after the vote that spreads a leader's acquire, before the ballot
// whose count the leader releases with. Compiled to PTX only; check_tile_group_syncs.py
// reads each kernel's instructions in order.

#include <unisync/barrier.hpp>
#include <unisync/latch.hpp>
#include <unisync/mutex.hpp>

#include <cooperative_groups.h>

namespace {

namespace cg = cooperative_groups;
constexpr auto device = cuda::thread_scope_device;

template <unsigned Size>
__device__ auto tile()
{
  return cg::tiled_partition<Size>(cg::this_thread_block());
}

}  // namespace

// Leader's acquire, vote, then a sync that carries the acquire to the tile.
__global__ void try_lock_tile32(unisync::basic_mutex<device>* mutex, bool* taken)
{
  taken[threadIdx.x] = mutex->try_lock(tile<32>());
}

__global__ void try_lock_tile8(unisync::basic_mutex<device>* mutex, bool* taken)
{
  taken[threadIdx.x] = mutex->try_lock(tile<8>());
}

// A sync that orders the lanes' writes, the ballot, then the leader's release.
__global__ void count_down_tile32(unisync::basic_latch<device>* latch)
{
  latch->count_down(tile<32>());
}

__global__ void count_down_tile8(unisync::basic_latch<device>* latch)
{
  latch->count_down(tile<8>());
}

__global__ void arrive_and_wait_tile32(unisync::basic_barrier<device>* barrier)
{
  barrier->arrive_and_wait(tile<32>());
}
