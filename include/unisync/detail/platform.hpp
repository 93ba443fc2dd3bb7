#pragma once
// The only place where host and device code differ: clock, sleep, released runs of stores,
// and how a violated precondition is reported. Algorithms call these and read the same on
// both sides.

#include <unisync/detail/config.hpp>
#include <unisync/error.hpp>

#include <cuda/atomic>
#include <cuda/std/cstdint>
#include <nv/target>

#include <atomic>
#include <chrono>
#include <string>
#include <system_error>
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

/// Whether the calling code runs on the GPU: which side of the link a thread is on.
UNISYNC_HOST_DEVICE inline bool running_on_device() noexcept
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return true;), (return false;))
}

/// Begins a run of stores that must each be released at `Scope` (copies of one value that
/// readers acquire), and returns the order to store them with. The device issues one
/// release fence and stores them relaxed: each of its release stores is a fence of its own
/// (H100, 132 GPU writers storing copies to host lines: 12.9 us to reopen with 16 release
/// stores, 2.9 us with one fence and 128 relaxed stores). The host stores each with
/// release, which on x86-64 is a plain store, and which ThreadSanitizer sees (it does not
/// model fences); a thread that acquires one of the host's copies also sees every copy
/// stored before it, which shared_mutex's report relies on (closing_copies_ahead_of()).
template <cuda::thread_scope Scope>
UNISYNC_HOST_DEVICE inline cuda::std::memory_order begin_released_stores() noexcept
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (cuda::atomic_thread_fence(cuda::std::memory_order_release, Scope);
                     return cuda::std::memory_order_relaxed;),
                    (return cuda::std::memory_order_release;))
}

/// A number of the calling host thread, handed out in the order threads first ask: spreads
/// host threads over striped counters.
inline cuda::std::uint32_t host_thread_number() noexcept
{
  static std::atomic<cuda::std::uint32_t> next{0};
  thread_local cuda::std::uint32_t const mine = next.fetch_add(1, std::memory_order_relaxed);
  return mine;
}

/// A small number that tells threads apart, for spreading them over striped counters: the
/// block's index in its grid on the device, the host thread's number on the host. The same
/// thread always gets the same number, so that it leaves the stripe it joined. (Not the
/// multiprocessor: PTX lets %smid change while a thread runs, after a preemption.)
UNISYNC_HOST_DEVICE inline cuda::std::uint32_t stripe_hint() noexcept
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);),
                    (return host_thread_number();))
}

/// Atomic access to a word that only the calling thread's own side of the link touches
/// with read-modify-writes (a partitioned primitive's per-side counter), at the narrowest
/// scope that covers that side: device scope on the GPU, system scope on the host (where
/// scopes cost nothing). Cross-side orderings go through other, system-scope, words;
/// PTX releases and acquires are cumulative, so the two chain. Generic addressing, unlike
/// atomic_at: with its global forms here too, the mixed cells of partitioned_semaphore and
/// of the system-scope shared_mutex measured 0.97x and 0.96x head in one lease, with these
/// generic 1.10x and 0.99x in another (H200, benchmark/results/h200-global-atomics).
template <class T>
class own_side_word {
 public:
  UNISYNC_HOST_DEVICE explicit own_side_word(T& word) noexcept : word_(word) {}

  UNISYNC_HOST_DEVICE T load(cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().load(order);), (return system().load(order);))
  }
  UNISYNC_HOST_DEVICE void store(T value, cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (device().store(value, order);), (system().store(value, order);))
  }
  UNISYNC_HOST_DEVICE T fetch_add(T value, cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().fetch_add(value, order);),
                      (return system().fetch_add(value, order);))
  }
  UNISYNC_HOST_DEVICE T fetch_sub(T value, cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().fetch_sub(value, order);),
                      (return system().fetch_sub(value, order);))
  }
  UNISYNC_HOST_DEVICE T fetch_or(T value, cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().fetch_or(value, order);),
                      (return system().fetch_or(value, order);))
  }
  UNISYNC_HOST_DEVICE T exchange(T value, cuda::std::memory_order order) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().exchange(value, order);),
                      (return system().exchange(value, order);))
  }
  UNISYNC_HOST_DEVICE bool compare_exchange_strong(T& expected, T desired, cuda::std::memory_order success,
                                                   cuda::std::memory_order failure) const noexcept
  {
    NV_IF_ELSE_TARGET(NV_IS_DEVICE, (return device().compare_exchange_strong(expected, desired, success, failure);),
                      (return system().compare_exchange_strong(expected, desired, success, failure);))
  }

 private:
  UNISYNC_HOST_DEVICE cuda::atomic_ref<T, cuda::thread_scope_device> device() const noexcept
  {
    return cuda::atomic_ref<T, cuda::thread_scope_device>(word_);
  }
  UNISYNC_HOST_DEVICE cuda::atomic_ref<T, cuda::thread_scope_system> system() const noexcept
  {
    return cuda::atomic_ref<T, cuda::thread_scope_system>(word_);
  }

  T& word_;
};

/// Tells the host processor that the thread is spinning (x86 `pause`, Arm `yield`), so
/// that it spends less power and hands its core's resources to a sibling hyperthread.
inline void spin_wait_hint() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif  // defined(__x86_64__) || defined(__i386__)
}

/// Gives the processor away for about `nanoseconds`. The device sleeps in hardware
/// (`__nanosleep`); the host yields below `host_sleep_threshold_ns` because Linux cannot
/// sleep for much less than 50 us, and sleeps above. It does not spin: with managed
/// memory the GPU's page faults are served by driver threads on the CPU, and CPU waiters
/// that spun instead of yielding made mixed cells 2-100x slower on the H100 machine (the
/// proportional policy spins only briefly, within a budget per wait).
template <class Tuning>
UNISYNC_HOST_DEVICE void pause_for_nanoseconds(cuda::std::uint32_t nanoseconds) noexcept
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__nanosleep(nanoseconds);),
                    (if (nanoseconds < Tuning::host_sleep_threshold_ns) {
                      std::this_thread::yield();
                    } else {
                      std::this_thread::sleep_for(std::chrono::nanoseconds(nanoseconds));
                    }))
}

/// Spins on the host processor for about `nanoseconds`, with the spin-wait hint between
/// clock reads: for waits shorter than a yield (a system call, about a microsecond).
inline void spin_for_nanoseconds(cuda::std::uint32_t nanoseconds) noexcept
{
  cuda::std::uint64_t const until = monotonic_nanoseconds() + nanoseconds;
  do {
    spin_wait_hint();
  } while (monotonic_nanoseconds() < until);
}

/// The proportional policy's pause, for a wait whose forecast is accurate: a short delay
/// is spent polling. The device polls again at once at or below `device_spin_threshold_ns`
/// (its shortest sleeps outlast an L2 poll); the host spins at or below
/// `host_spin_threshold_ns`, until `spin_until_ns` (0 before the wait's first spin, which
/// sets it `host_spin_budget_ns` ahead; the caller keeps it for the wait). Longer delays
/// pause as pause_for_nanoseconds.
template <class Tuning>
UNISYNC_HOST_DEVICE void pause_near_turn(cuda::std::uint32_t nanoseconds, cuda::std::uint64_t& spin_until_ns) noexcept
{
  NV_IF_ELSE_TARGET(
      NV_IS_DEVICE, (if (nanoseconds > Tuning::device_spin_threshold_ns) __nanosleep(nanoseconds);),
      (if (nanoseconds <= Tuning::host_spin_threshold_ns) {
        cuda::std::uint64_t const now = monotonic_nanoseconds();
        if (spin_until_ns == 0) spin_until_ns = now + Tuning::host_spin_budget_ns;
        if (now < spin_until_ns) {
          spin_for_nanoseconds(nanoseconds);
          return;
        }
      } pause_for_nanoseconds<Tuning>(nanoseconds);))
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

/// Reports misuse of a lock wrapper that std reports with std::system_error (locking one
/// that owns its mutex or has none, unlocking one that does not own it) and does not
/// return: the host throws std::system_error with `code`, std's error condition, and a
/// message that says what and where; the device fails the kernel with `cudaErrorAssert`
/// after printing the message.
[[noreturn]] UNISYNC_NOINLINE UNISYNC_HOST_DEVICE inline void lock_misused(std::errc code, char const* message, char const* file,
                                                          int line, char const* function)
{
  NV_IF_ELSE_TARGET(NV_IS_DEVICE,
                    (static_cast<void>(code); __assert_fail(message, file, static_cast<unsigned>(line), function);
                     __trap();),
                    (throw std::system_error(std::make_error_code(code), std::string("unisync lock misused: ") +
                                                                             message + " (in " + function + ", " +
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

  /// Nanoseconds left before the deadline; 0 once it has passed.
  UNISYNC_HOST_DEVICE cuda::std::uint64_t remaining_ns() const noexcept
  {
    cuda::std::uint64_t const now = monotonic_nanoseconds();
    return now >= at_ ? 0 : at_ - now;
  }

  /// `delay_ns`, or the time left if that is less: a pause of this length ends by the
  /// deadline, so a timed wait overshoots it by the sleep primitive's slack only.
  UNISYNC_HOST_DEVICE cuda::std::uint32_t clamp_ns(cuda::std::uint32_t delay_ns) const noexcept
  {
    cuda::std::uint64_t const left = remaining_ns();
    return left < delay_ns ? static_cast<cuda::std::uint32_t>(left) : delay_ns;
  }

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

/// As UNISYNC_EXPECTS, for arrival paths of barriers on the device, where the check may
/// make no call: the device traps (cudaErrorLaunchFailure) without printing the message;
/// the host throws it. A call anywhere in that path makes ptxas put a CTA-wide memory
/// barrier in front of the warp-aggregated acquire-release atomic of every block's arrival
/// (H100, basic_barrier at device scope, block arrival, one probe run: 1.15 against
/// 1.07 us per phase at 132 blocks).
#define UNISYNC_EXPECTS_WITHOUT_CALL(condition, message)                                      \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      NV_IF_ELSE_TARGET(NV_IS_DEVICE, (__trap();),                                           \
                        (::unisync::detail::precondition_failed(message, __FILE__, __LINE__, __func__);)) \
    }                                                                                        \
  } while (false)

/// Checked in every build: the lock wrappers' use, which std reports with std::system_error
/// (a test of the wrapper's own members, no memory traffic); see lock_misused.
#define UNISYNC_CHECK_LOCK_USE(condition, code, message)                                     \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      ::unisync::detail::lock_misused(code, message, __FILE__, __LINE__, __func__);          \
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
