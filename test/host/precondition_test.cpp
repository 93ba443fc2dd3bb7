// Violated preconditions are reported with which precondition and where (unisync::error
// on the host), never a hang or silent corruption. Built with UNISYNC_ENABLE_ASSERTIONS.

#include <unisync/barrier.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/mutex.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/scoped_lock.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>

namespace {

static_assert(UNISYNC_ENABLE_ASSERTIONS, "this suite checks the per-operation precondition checks");

template <class Operation>
std::string violation_reported_by(Operation operation)
{
  try {
    operation();
  } catch (unisync::error const& violation) {
    return violation.what();
  }
  return "(nothing reported)";
}

/// The report names the violated precondition and the place (function, file and line).
::testing::AssertionResult names_precondition_and_place(std::string const& report, std::string const& precondition)
{
  bool const names_it = report.find("unisync precondition violated: ") != std::string::npos &&
                        report.find(precondition) != std::string::npos;
  bool const names_place = report.find(" (in ") != std::string::npos && report.find("unisync/") != std::string::npos;
  if (names_it && names_place) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "report \"" << report << "\" does not name \"" << precondition
                                       << "\" and where it was violated";
}

TEST(Preconditions, MutexUnlockWhenNotLocked)
{
  unisync::mutex lock;
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { lock.unlock(); }), "mutex that is not locked"));
}

TEST(Preconditions, LockNamingOneMutexTwice)
{
  unisync::mutex first;
  unisync::mutex second;
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { unisync::lock(first, second, first); }),
                                           "names one lockable twice"));
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { unisync::scoped_lock both(second, second); }),
                                           "names one lockable twice"));
  EXPECT_EQ(unisync::try_lock(first, second), -1) << "the refused calls left a mutex held";
  first.unlock();
  second.unlock();
}

TEST(Preconditions, TicketMutexUnlockWhenNotLocked)
{
  unisync::ticket_mutex lock;
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { lock.unlock(); }), "ticket_mutex that is not locked"));
  lock.lock();
  lock.unlock();
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { lock.unlock(); }), "ticket_mutex that is not locked"));
}

template <class SharedMutex>
void expect_shared_mutex_misuse_reported()
{
  auto const mutex = std::make_unique<SharedMutex>();
  auto const unlock_reported = [&] {
    return names_precondition_and_place(violation_reported_by([&] { mutex->unlock(); }),
                                        "unlock() of a shared_mutex that is not held exclusively");
  };
  auto const unlock_shared_reported = [&] {
    return names_precondition_and_place(violation_reported_by([&] { mutex->unlock_shared(); }),
                                        "unlock_shared() of a shared_mutex that no reader of this side holds shared");
  };
  EXPECT_TRUE(unlock_reported());
  EXPECT_TRUE(unlock_shared_reported());
  mutex->lock();
  mutex->unlock();
  mutex->lock_shared();
  mutex->unlock_shared();
  EXPECT_TRUE(unlock_reported()) << "after a writer's section";
  EXPECT_TRUE(unlock_shared_reported()) << "after a reader's section";
}

TEST(Preconditions, SharedMutexUnlockWhenNotHeld)
{
  expect_shared_mutex_misuse_reported<unisync::shared_mutex>();
  // Below system scope the writers' lock holds the gate: its queue tells.
  expect_shared_mutex_misuse_reported<unisync::basic_shared_mutex<cuda::thread_scope_device>>();
}

TEST(Preconditions, CohortMutexUnlockWhenNotHeld)
{
  auto const lock = std::make_unique<unisync::cohort_mutex>();
  auto const reported = [&] {
    return names_precondition_and_place(violation_reported_by([&] { lock->unlock(); }),
                                        "unlock() of a cohort_mutex not held by this side");
  };
  EXPECT_TRUE(reported());
  lock->lock();
  lock->unlock();
  EXPECT_TRUE(reported()) << "after a section";
}

TEST(Preconditions, PartitionedSemaphoreReleasePreconditions)
{
  auto const semaphore = std::make_unique<unisync::partitioned_semaphore<2>>(1);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore->release(-1); }), "update >= 0"));
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore->release(2); }), "above max()"));
  semaphore->release(1);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore->release(); }), "above max()"));
  semaphore->acquire();
  semaphore->acquire();
}

TEST(Preconditions, PartitionedBarrierArriveWithNonPositiveUpdate)
{
  auto const barrier = std::make_unique<unisync::partitioned_barrier<>>(4);
  auto const arrival_of = [&](std::ptrdiff_t update) {
    return violation_reported_by([&] { static_cast<void>(barrier->arrive(update)); });
  };
  EXPECT_TRUE(names_precondition_and_place(arrival_of(0), "0 < update"));
  EXPECT_TRUE(names_precondition_and_place(arrival_of(-2), "0 < update"));
}

TEST(Preconditions, SemaphoreReleaseWithNegativeUpdate)
{
  unisync::counting_semaphore<> semaphore(0);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore.release(-1); }), "update >= 0"));
}

TEST(Preconditions, SemaphoreReleasePastMax)
{
  unisync::counting_semaphore<4> semaphore(3);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore.release(2); }), "above max()"));
  semaphore.release(1);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { semaphore.release(); }), "above max()"));
  unisync::binary_semaphore binary(1);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { binary.release(); }), "above max()"));
}

TEST(Preconditions, BarrierArriveWithNonPositiveUpdate)
{
  unisync::barrier<> barrier(4);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { static_cast<void>(barrier.arrive(0)); }), "0 < update"));
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { static_cast<void>(barrier.arrive(-2)); }), "0 < update"));
}

TEST(Preconditions, BarrierArriveWithMoreThanMissing)
{
  unisync::barrier<> barrier(2);
  EXPECT_TRUE(names_precondition_and_place(violation_reported_by([&] { static_cast<void>(barrier.arrive(3)); }), "update above the arrivals missing"));
}

}  // namespace
