#pragma once
// What a lock wrapper's misuse reports on the host: std reports it with std::system_error
// ([thread.lock.unique.locking], [thread.lock.shared.locking]), and so do unisync's
// unique_lock and shared_lock, in every build.

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <system_error>

namespace unisync::test {

/// Whether `operation` throws std::system_error with the error condition `expected` and a
/// message that names `misuse` and where it happened (function, file and line).
template <class Operation>
::testing::AssertionResult reports_misuse(Operation operation, std::errc expected, std::string const& misuse)
{
  try {
    operation();
  } catch (std::system_error const& reported) {
    std::string const message = reported.what();
    bool const names_it = message.find("unisync lock misused: ") != std::string::npos &&
                          message.find(misuse) != std::string::npos;
    bool const names_place =
        message.find(" (in ") != std::string::npos && message.find("unisync/") != std::string::npos;
    if (reported.code() == std::make_error_code(expected) && names_it && names_place) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "std::system_error " << reported.code() << " \"" << message
                                         << "\", expected " << std::make_error_code(expected) << " naming \""
                                         << misuse << "\" and where";
  }
  return ::testing::AssertionFailure() << "nothing thrown, expected std::system_error naming \"" << misuse << "\"";
}

// GCC 12 warns that `empty` below calls into a null mutex after inlining its refused
// lock(): the call stands after a [[noreturn]] report, so it is never reached.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull"
#endif  // defined(__GNUC__) && !defined(__clang__)
/// Every misuse std names for a lock wrapper ([thread.lock.unique.locking],
/// [thread.lock.shared.locking]) on a `Wrapper` of `mutex`, free on entry and left free:
/// each locking member of one that owns it (resource_deadlock_would_occur, and it still
/// owns it), unlock() of one that does not, lock() and try_lock_for() of one without a
/// mutex (operation_not_permitted).
template <class Wrapper, class Mutex>
void expect_every_misuse_reported(Mutex& mutex)
{
  using namespace std::chrono_literals;
  auto const owns = std::errc::resource_deadlock_would_occur;
  auto const not_permitted = std::errc::operation_not_permitted;
  Wrapper owner(mutex);
  EXPECT_TRUE(reports_misuse([&] { owner.lock(); }, owns, "already owns"));
  EXPECT_TRUE(reports_misuse([&] { static_cast<void>(owner.try_lock()); }, owns, "already owns"));
  EXPECT_TRUE(reports_misuse([&] { static_cast<void>(owner.try_lock_for(1ms)); }, owns, "already owns"));
  EXPECT_TRUE(reports_misuse([&] { static_cast<void>(owner.try_lock_until(std::chrono::steady_clock::now())); },
                             owns, "already owns"));
  EXPECT_TRUE(owner.owns_lock()) << "a refused call changed the lock's state";
  owner.unlock();
  EXPECT_TRUE(reports_misuse([&] { owner.unlock(); }, not_permitted, "without owning"));
  Wrapper empty;
  EXPECT_TRUE(reports_misuse([&] { empty.lock(); }, not_permitted, "no mutex"));
  EXPECT_TRUE(reports_misuse([&] { static_cast<void>(empty.try_lock_for(1ms)); }, not_permitted, "no mutex"));
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif  // defined(__GNUC__) && !defined(__clang__)

}  // namespace unisync::test
