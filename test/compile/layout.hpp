#pragma once
// Sizes, alignments and member offsets of every public primitive, computed the same way
// in a g++ translation unit and an nvcc one: the two must agree for one object to be
// shared between them.

#include <unisync/unisync.hpp>

#include <cstddef>
#include <vector>

namespace unisync::test {

using layout = std::vector<std::size_t>;

template <class T>
void describe(layout& out)
{
  out.push_back(sizeof(T));
  out.push_back(alignof(T));
}

inline layout layout_of_primitives()
{
  layout out;
  describe<unisync::mutex>(out);
  describe<unisync::spin_mutex>(out);
  describe<unisync::ticket_mutex>(out);
  describe<unisync::counting_semaphore<>>(out);
  describe<unisync::binary_semaphore>(out);
  describe<unisync::barrier<>>(out);
  describe<unisync::basic_barrier<cuda::thread_scope_device>>(out);
  describe<unisync::cohort_mutex>(out);
  describe<unisync::partitioned_barrier<>>(out);
  describe<unisync::partitioned_semaphore<>>(out);
  describe<unisync::partitioned_binary_semaphore>(out);
  describe<unisync::latch>(out);
  describe<unisync::basic_latch<cuda::thread_scope_device>>(out);
  return out;
}

layout layout_seen_by_host_compiler();

}  // namespace unisync::test
