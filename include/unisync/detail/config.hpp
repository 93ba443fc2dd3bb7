#pragma once
// Compiler and build configuration shared by every unisync header. Works under nvcc and
// under a host-only C++ compiler alike: nothing here changes a data member.

#include <cuda/std/__cccl/version.h>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>

#define UNISYNC_VERSION_MAJOR 0
#define UNISYNC_VERSION_MINOR 1
#define UNISYNC_VERSION_PATCH 0

#if CCCL_VERSION < 2002000
#error "unisync needs CCCL (libcu++) 2.2 or newer: install a newer CUDA Toolkit (12.3+)."
#endif  // CCCL_VERSION < 2002000

#if defined(__CUDACC__)
#define UNISYNC_HOST_DEVICE __host__ __device__
#define UNISYNC_DEVICE __device__
#else  // !defined(__CUDACC__)
#define UNISYNC_HOST_DEVICE
#define UNISYNC_DEVICE
#endif  // defined(__CUDACC__)

// Inlines a hot path that the compiler's heuristics would leave out of line: on the host
// a call there costs more than the path itself (partitioned_barrier's arrival, one CPU
// thread on a 2-core host: 25 ns per phase out of line, 12 ns inlined, as `barrier`).
#if defined(__CUDACC__)
#define UNISYNC_FORCE_INLINE __forceinline__
#elif defined(__GNUC__)
#define UNISYNC_FORCE_INLINE inline __attribute__((always_inline))
#else  // neither nvcc nor a GNU-compatible compiler
#define UNISYNC_FORCE_INLINE inline
#endif  // defined(__CUDACC__)

// Keeps a rare slow path out of line, so that the hot loop around it stays small
// (partitioned_barrier's cross-link completion, inside every GPU waiter's poll loop).
#if defined(__CUDACC__)
#define UNISYNC_NOINLINE __noinline__
#elif defined(__GNUC__)
#define UNISYNC_NOINLINE __attribute__((noinline))
#else  // neither nvcc nor a GNU-compatible compiler
#define UNISYNC_NOINLINE
#endif  // defined(__CUDACC__)

// Per-operation precondition checks: on in debug builds, or when asked for.
#if !defined(UNISYNC_ENABLE_ASSERTIONS)
#if defined(NDEBUG)
#define UNISYNC_ENABLE_ASSERTIONS 0
#else  // !defined(NDEBUG)
#define UNISYNC_ENABLE_ASSERTIONS 1
#endif  // defined(NDEBUG)
#endif  // !defined(UNISYNC_ENABLE_ASSERTIONS)

namespace unisync::detail {

// Independently written words sit on separate lines of this size: 128 bytes is the GPU's
// L2 line and two of the host's 64-byte lines (the adjacent-line prefetcher pairs them).
inline constexpr cuda::std::size_t cache_line_size = 128;

// The parts of a platform-aware type that its sides touch sit on pages of their own, so that
// make_managed can advise each part for its side: cudaMemAdvise acts on whole host pages
// (4 KiB on x86-64 Linux).
inline constexpr cuda::std::size_t page_size = 4096;

// Befriended by the primitives; defined only by the tests, to read and seed counters
// (e.g. near the 32-bit wrap point).
struct test_access;

}  // namespace unisync::detail
