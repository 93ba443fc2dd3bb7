#pragma once
// The only place where host and device code differ: clock, sleep, and how a violated
// precondition is reported. Algorithms call these and read the same on both sides.

#include <unisync/detail/config.hpp>
#include <unisync/error.hpp>

#include <cuda/std/cstdint>
#include <nv/target>

#include <chrono>
#include <string>
#include <thread>

namespace unisync::detail {

/// Nanoseconds from a monotonic clock of the calling side. Host and device clocks are
/// unrelated: compare readings only with readings taken on the same side.
UNISYNC_HOST_DEVICE inline cuda::std::uint64_t monotonic_nanoseconds() noexcept
{
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE,
      (cuda::std::uint64_t now; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
       return now;),
      (return static_cast<cuda::std::uint64_t>(
                  std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());))
}

/// Gives the processor away for about `nanoseconds`. The device sleeps in hardware
/// (`__nanosleep`); the host yields below `host_sleep_threshold_ns` because Linux cannot
/// sleep for much less than 50 us, and sleeps above it.
UNISYNC_HOST_DEVICE inline void pause_for_nanoseconds(cuda::std::uint32_t nanoseconds,
                                                      cuda::std::uint32_t host_sleep_threshold_ns) noexcept
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__nanosleep(nanoseconds);),
                    (if (nanoseconds < host_sleep_threshold_ns) {
                      std::this_thread::yield();
                    } else {
                      std::this_thread::sleep_for(std::chrono::nanoseconds(nanoseconds));
                    }))
}

/// Reports a violated precondition and does not return: the host throws
/// `unisync::error`, the device fails the kernel with `cudaErrorAssert` after printing
/// the message, file and line.
[[noreturn]] UNISYNC_HOST_DEVICE inline void precondition_failed(char const* message, char const* file,
                                                                 int line, char const* function)
{
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE, (__assert_fail(message, file, static_cast<unsigned>(line), function); __trap();),
      (throw error(std::string("unisync precondition violated: ") + message + " (in " + function + ", " +
                   file + ":" + std::to_string(line) + ")");))
}

/// A point in time on the calling side's monotonic clock, after which a timed wait gives up.
class deadline {
 public:
  UNISYNC_HOST_DEVICE static deadline after(cuda::std::uint64_t nanoseconds) noexcept
  {
    cuda::std::uint64_t const now = monotonic_nanoseconds();
    cuda::std::uint64_t const limit = ~cuda::std::uint64_t{0};
    return deadline(nanoseconds > limit - now ? limit : now + nanoseconds);
  }

  UNISYNC_HOST_DEVICE bool passed() const noexcept { return monotonic_nanoseconds() >= at_; }

 private:
  UNISYNC_HOST_DEVICE explicit deadline(cuda::std::uint64_t at) noexcept : at_(at) {}
  cuda::std::uint64_t at_;
};

}  // namespace unisync::detail

/// Checked in every build: for cheap checks outside hot paths (constructor arguments).
#define UNISYNC_EXPECTS(condition, message)                                                  \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      ::unisync::detail::precondition_failed(message, __FILE__, __LINE__, __func__);         \
    }                                                                                        \
  } while (false)

/// Checked when UNISYNC_ENABLE_ASSERTIONS is on (debug builds): per-operation checks.
#if UNISYNC_ENABLE_ASSERTIONS
#define UNISYNC_ASSERT(condition, message) UNISYNC_EXPECTS(condition, message)
#else  // !UNISYNC_ENABLE_ASSERTIONS
#define UNISYNC_ASSERT(condition, message) \
  do {                                     \
  } while (false)
#endif  // UNISYNC_ENABLE_ASSERTIONS
