#pragma once
// Cooperative-groups helpers behind the group ("block semantics") overloads. Only under
// nvcc: <cooperative_groups.h> declares nothing for a host-only compiler, and the
// overloads that use these are member functions, so no layout depends on this.

#include <unisync/detail/config.hpp>

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cuda/std/cstdint>
#include <cuda/std/cstring>
#include <cuda/std/utility>

namespace unisync::detail {

/// Restricts a group overload to cooperative groups, so that `release(5)` still picks
/// `release(ptrdiff_t)` and not a group template.
template <class Group>
using enable_if_group_t = decltype(static_cast<void>(cuda::std::declval<Group const&>().thread_rank()),
                                   static_cast<void>(cuda::std::declval<Group const&>().sync()));

/// The calling thread's lane in its warp, whatever the block's shape.
__device__ inline unsigned lane_in_warp()
{
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

/// The thread of the group that touches the shared object on the group's behalf.
template <class Group>
__device__ bool is_group_leader(Group const& group)
{
  return group.thread_rank() == 0;
}

/// A block's leader, rank 0, is lane 0 of its warp. Saying so lets ptxas see that one lane
/// of a warp runs the leader's atomics; from the rank alone it cannot, and it wraps each
/// of them in a warp aggregation (a vote and a population count before the atomic, the
/// lane's share of its result after it) on the critical path of every group call. H100,
/// device scope, block arrival: 0.90-0.97x the time per phase with 1-264 blocks, 1.05x
/// with 528 (benchmark/results/h100-group-leader-lane).
__device__ inline bool is_group_leader(cooperative_groups::thread_block const& block)
{
  return lane_in_warp() == 0 && block.thread_rank() == 0;
}

/// The rank of a calling thread of the group in another warp than its leader's, given
/// how many threads call (group_count): the first of a block's second warp when the whole
/// block calls; the leader itself where there is none (a block of one warp, a block some
/// of whose threads have exited, a tile, a coalesced group).
__device__ inline unsigned rank_in_second_warp(cooperative_groups::thread_block const&, cuda::std::uint32_t calling)
{
  unsigned const size = blockDim.x * blockDim.y * blockDim.z;
  return size > 32 && calling == size ? 32u : 0u;
}

template <class Group>
__device__ unsigned rank_in_second_warp(Group const&, cuda::std::uint32_t)
{
  return 0;
}

/// True in every thread of the group when `predicate` is true in any; synchronizes the group.
__device__ inline bool group_any(cooperative_groups::thread_block const&, bool predicate)
{
  return __syncthreads_or(predicate) != 0;
}

template <unsigned Size, class Parent>
__device__ bool group_any(cooperative_groups::thread_block_tile<Size, Parent> const& tile, bool predicate)
{
  // A vote orders no memory: the sync after it orders the leader's acquire before every
  // lane's later accesses (bar.warp.sync orders memory among the lanes it names).
  bool const any = tile.any(predicate) != 0;
  tile.sync();
  return any;
}

/// The number of the group's threads that call this; synchronizes the group.
__device__ inline cuda::std::uint32_t group_count(cooperative_groups::thread_block const&)
{
  return static_cast<cuda::std::uint32_t>(__syncthreads_count(1));
}

template <unsigned Size, class Parent>
__device__ cuda::std::uint32_t group_count(cooperative_groups::thread_block_tile<Size, Parent> const& tile)
{
  // The sync orders every lane's earlier writes before the leader's release; the ballot
  // alone orders no memory.
  tile.sync();
  return static_cast<cuda::std::uint32_t>(__popc(tile.ballot(1)));
}

__device__ inline cuda::std::uint32_t group_count(cooperative_groups::coalesced_group const& group)
{
  group.sync();
  return group.size();
}

/// Group ("block semantics") entry: the leader runs `take` (lock, acquire), then the group
/// synchronizes, so every thread of the group runs after the leader's acquire.
template <class Group, class Take>
__device__ void leader_takes_for_group(Group const& group, Take take)
{
  if (is_group_leader(group)) take();
  group.sync();
}

/// The leader runs `attempt` (try_lock); its result reaches every thread of the group.
template <class Group, class Attempt>
__device__ bool leader_tries_for_group(Group const& group, Attempt attempt)
{
  bool const succeeded = is_group_leader(group) && attempt();
  return group_any(group, succeeded);
}

/// Group exit: the group synchronizes first, which orders every thread's work before the
/// leader's `give` (unlock, release).
template <class Group, class Give>
__device__ void leader_gives_for_group(Group const& group, Give give)
{
  group.sync();
  if (is_group_leader(group)) give();
}

/// Block-collective arrival at any unisync barrier: the group counts its threads (which
/// synchronizes it and orders every thread's writes before the leader's cumulative
/// release), the leader arrives once for all of them and waits, and the final sync spreads
/// the leader's acquire to the group.
template <class Group, class Barrier>
__device__ void group_arrive_and_wait(Group const& group, Barrier& barrier)
{
  cuda::std::uint32_t const arrivals = group_count(group);
  if (is_group_leader(group)) barrier.wait(barrier.arrive(arrivals));
  group.sync();
}

/// `value` of lane `leader` in every lane of `lanes`, for a trivially copyable value made
/// of 32-bit words.
template <class Value>
__device__ Value broadcast_from(unsigned lanes, Value value, int leader)
{
  static_assert(sizeof(Value) % sizeof(unsigned) == 0, "broadcast_from moves 32-bit words");
  unsigned words[sizeof(Value) / sizeof(unsigned)];
  cuda::std::memcpy(words, &value, sizeof(Value));
  for (unsigned& word : words) word = __shfl_sync(lanes, word, leader);
  cuda::std::memcpy(&value, words, sizeof(Value));
  return value;
}

/// Every lane of the warp. With a lane mask known only at run time, ptxas guards each warp
/// sync and shuffle with a match of the mask across the lanes (MATCH.ANY, REDUX, VOTE), and
/// matching the object's address costs one more; one_call_for_alike_lanes uses this
/// constant instead where the whole warp is there and names one object. The latch's
/// per-thread calls took 0.91-0.98x the time per round with GPU threads alone at system
/// scope (H200, benchmark/results/h200-whole-warp-lanes). Per-thread barrier arrivals,
/// measured the same way, took 0.95-0.98x with 1-33 blocks but 1.01-1.02x with 264-528 (and
/// 1.06x with 132 in one of two leases), and 528 is where ours leads libcu++:
/// lanes_arrive_and_wait keeps its match.
inline constexpr unsigned whole_warp = 0xffffffffu;

/// True in every lane when all 32 lanes of the warp are converged here and name the same
/// `object` and `value`: shuffles from lane 0 and a vote, no match. Every lane runs both
/// shuffles (not behind a short-circuit: a lane that skipped one would leave the others
/// waiting in it).
__device__ inline bool whole_warp_names(unsigned converged, void const* object, unsigned long long value)
{
  if (converged != whole_warp) return false;
  auto const address = reinterpret_cast<unsigned long long>(object);
  unsigned long long const first_address = __shfl_sync(whole_warp, address, 0);
  unsigned long long const first_value = __shfl_sync(whole_warp, value, 0);
  return __all_sync(whole_warp, address == first_address && value == first_value) != 0;
}

/// Per-thread arrive_and_wait() on the device: the converged lanes of the warp that name
/// the same `barrier` arrive with one addition (each still one arrival), lanes that name
/// other barriers in the same call are separate calls. The lowest such lane adds them,
/// `arrive_lanes(count)`, which says where they landed (span_phases(), phase_of(rank),
/// token_of(rank): rank r is the lane with r such lanes below it). When they all landed
/// in one phase that lane waits for it, `wait(token)`, for all of them; when more lanes
/// came than the phase took, each phase's lowest lane waits for its own phase, and each
/// lane leaves when its own phase completes, as after a call of its own. The warp syncs
/// before the addition (ordering every lane's writes before the adding lane's release)
/// and after each wait (spreading the waiting lane's acquire to the lanes it waited for).
template <class ArriveLanes, class Wait>
__device__ void lanes_arrive_and_wait(void const* barrier, ArriveLanes arrive_lanes, Wait wait)
{
  unsigned const converged = __activemask();
  unsigned const same_barrier = __match_any_sync(converged, reinterpret_cast<unsigned long long>(barrier));
  unsigned const lane = lane_in_warp();
  int const adder = __ffs(same_barrier) - 1;
  auto const lanes = static_cast<cuda::std::uint32_t>(__popc(same_barrier));
  __syncwarp(same_barrier);
  decltype(arrive_lanes(lanes)) placed{};
  if (static_cast<int>(lane) == adder) placed = arrive_lanes(lanes);
  if (__shfl_sync(same_barrier, static_cast<unsigned>(placed.span_phases()), adder) == 0) {
    if (static_cast<int>(lane) == adder) wait(placed.token_of(lanes - 1));
    __syncwarp(same_barrier);
    return;
  }
  // More lanes than the open phase took. The sync spreads the adding lane's acquire of
  // the phases its own additions completed to the lanes counted in them.
  placed = broadcast_from(same_barrier, placed, adder);
  __syncwarp(same_barrier);
  auto const rank = static_cast<cuda::std::uint32_t>(__popc(same_barrier & ((1u << lane) - 1u)));
  unsigned const same_phase = __match_any_sync(same_barrier, placed.phase_of(rank));
  if (static_cast<int>(lane) == __ffs(same_phase) - 1) wait(placed.token_of(rank));
  __syncwarp(same_phase);
}

/// The body of one_call_for_alike_lanes for the lanes `alike`; inlined into both of its
/// calls, so that where they are the whole warp every mask in it is a constant.
template <class Body>
__device__ __forceinline__ void alike_lanes_call_once(unsigned alike, Body body)
{
  __syncwarp(alike);
  if (static_cast<int>(lane_in_warp()) == __ffs(alike) - 1) body(static_cast<cuda::std::uint32_t>(__popc(alike)));
  __syncwarp(alike);
}

/// Per-thread calls on the device that the warp may make as one: the converged lanes that
/// call this naming the same `object` and the same `value` synchronize, the lowest of them
/// runs `body(lanes)` once for all of them (`lanes`: how many), and they synchronize again,
/// so that every lane returns after it, as from a call of its own. The first sync orders
/// every lane's writes before that lane's releases, the second spreads its acquires to
/// the lanes. Lanes that name another object or value are separate calls.
template <class Body>
__device__ void one_call_for_alike_lanes(void const* object, unsigned long long value, Body body)
{
  unsigned const converged = __activemask();
  if (whole_warp_names(converged, object, value)) {
    alike_lanes_call_once(whole_warp, body);
    return;
  }
  unsigned const alike = __match_any_sync(converged, reinterpret_cast<unsigned long long>(object)) &
                         __match_any_sync(converged, value);
  alike_lanes_call_once(alike, body);
}

}  // namespace unisync::detail

#endif  // defined(__CUDACC__)
