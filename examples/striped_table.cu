// CPU threads and GPU blocks add keys to one striped hash table in managed memory, with
// each of unisync's lock types guarding the stripes; the table's contents are checked
// against a host replay of every actor's keys. Usage: unisync_example_striped_table
// [stripes]. Exit status: 0 when every count matches, 1 when one does not, 77 without a GPU.

#include "striped_table.cuh"

#include <unisync/capabilities.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unordered_map>
#include <vector>

namespace {

constexpr unsigned slot_bits = 16;
constexpr std::uint64_t key_range = 1u << 13;  // at most an eighth of the slots in use
constexpr int gpu_blocks = 33, cpu_threads = 4, adds_per_actor = 200;

template <class Lock>
__global__ void add_on_gpu(striped_table::table_view<Lock> table, int adds)
{
  striped_table::key_stream keys(blockIdx.x);  // one actor per block
  for (int add = 0; add < adds; ++add) table.add(keys.next(key_range));
}

template <class Lock>
bool run_and_check(char const* lock_name, std::uint32_t stripes)
{
  striped_table::table<Lock> table(slot_bits, stripes);
  auto const view = table.view();
  add_on_gpu<<<gpu_blocks, 1>>>(view, adds_per_actor);
  std::vector<std::thread> threads;
  for (int thread = 0; thread < cpu_threads; ++thread) {
    threads.emplace_back([view, thread] {
      striped_table::key_stream keys(gpu_blocks + thread);
      for (int add = 0; add < adds_per_actor; ++add) view.add(keys.next(key_range));
    });
  }
  for (std::thread& thread : threads) thread.join();
  if (cudaDeviceSynchronize() != cudaSuccess) return std::puts("the GPU actors failed"), false;

  // Replay every actor's keys on the host: the counts must match, and no key may sit in
  // two slots (the counts of all slots add up to the adds).
  std::unordered_map<std::uint64_t, std::uint64_t> expected;
  for (int actor = 0; actor < gpu_blocks + cpu_threads; ++actor) {
    striped_table::key_stream keys(actor);
    for (int add = 0; add < adds_per_actor; ++add) ++expected[keys.next(key_range)];
  }
  std::uint64_t wrong = 0;
  for (auto const& [key, count] : expected) wrong += view.count_of(key) != count;
  std::uint64_t in_slots = 0;
  for (std::uint64_t slot = 0; slot < (std::uint64_t{1} << slot_bits); ++slot) in_slots += view.counts[slot];
  std::uint64_t const adds = std::uint64_t{gpu_blocks + cpu_threads} * adds_per_actor;
  std::printf("%-22s %6u stripes (%zu bytes of lock each): %llu keys, %llu wrong counts, %llu of %llu adds in slots\n",
              lock_name, stripes, table.lock_bytes(), static_cast<unsigned long long>(expected.size()),
              static_cast<unsigned long long>(wrong), static_cast<unsigned long long>(in_slots),
              static_cast<unsigned long long>(adds));
  return wrong == 0 && in_slots == adds;
}

}  // namespace

int main(int argc, char** argv)
{
  if (!unisync::gpu_available()) return std::puts("no GPU: nothing to share the table with"), 77;
  auto const stripes = static_cast<std::uint32_t>(argc > 1 ? std::atoi(argv[1]) : 64);
  bool const correct = run_and_check<unisync::mutex>("unisync::mutex", stripes) &&
                       run_and_check<unisync::ticket_mutex>("unisync::ticket_mutex", stripes) &&
                       run_and_check<unisync::cohort_mutex>("unisync::cohort_mutex", stripes);
  return correct ? 0 : 1;
}
