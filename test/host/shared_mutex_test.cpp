// Shared-mutex properties on CPU threads: a writer's section never overlaps any other
// section, readers overlap, writers are not starved by readers nor readers by writers,
// timed forms give up and leave no trace. The system-scope mutex is also run with host
// threads standing in for GPU readers, which drives the GPU side's report to CPU writers.

#include "actors.hpp"
#include "bounded.hpp"
#include "shared_kinds.hpp"
#include "test_access.hpp"

#include <unisync/shared_lock.hpp>
#include <unisync/unique_lock.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using unisync::test::run_cpu_actors;
using access = unisync::detail::test_access;
using side = access::side;

#if defined(__SANITIZE_THREAD__)
constexpr unsigned sections_per_thread = 1500;
#else   // !defined(__SANITIZE_THREAD__)
constexpr unsigned sections_per_thread = 20000;
#endif  // defined(__SANITIZE_THREAD__)

/// Each thread reads or writes by its own pseudo-random choice; on the system-scope mutex,
/// readers with an odd actor number register as the GPU side when `gpu_stand_ins`.
template <class Mutex>
unisync::test::section_record run_mix(unsigned threads, unsigned read_percent, bool gpu_stand_ins)
{
  auto mutex = std::make_unique<Mutex>();
  unisync::test::section_record record;
  run_cpu_actors(threads, [&](unsigned actor) {
    unisync::test::read_write_choice choice(actor);
    side const as = gpu_stand_ins && actor % 2 == 1 ? side::gpu : side::cpu;
    for (unsigned i = 0; i < sections_per_thread; ++i) {
      if (choice.reads(read_percent)) {
        if constexpr (Mutex::partitioned) {
          access::lock_shared_as(*mutex, as);
        } else {
          mutex->lock_shared();
        }
        record.enter_shared();
        record.leave_shared();
        if constexpr (Mutex::partitioned) {
          access::unlock_shared_as(*mutex, as);
        } else {
          mutex->unlock_shared();
        }
      } else {
        mutex->lock();
        record.exclusive_section();
        mutex->unlock();
      }
    }
  });
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a reader's registration was left behind";
  return record;
}

template <class Mutex>
class HostSharedMutex : public ::testing::Test {};
using shared_types =
    ::testing::Types<unisync::shared_mutex, unisync::test::device_shared_mutex, unisync::test::striped_shared_mutex>;
TYPED_TEST_SUITE(HostSharedMutex, shared_types, unisync::test::shared_type_names);

TYPED_TEST(HostSharedMutex, WriterSectionsNeverOverlapAnySection)
{
  for (unsigned threads : unisync::test::cpu_thread_counts()) {
    for (unsigned read_percent : {50u, 90u, 99u}) {
      auto const record = run_mix<TypeParam>(threads, read_percent, false);
      EXPECT_EQ(record.overlaps, 0u) << threads << " threads, " << read_percent << "% reads";
      EXPECT_EQ(record.reads + record.writes, std::uint64_t{threads} * sections_per_thread)
          << "lost updates under the exclusive lock: writers overlapped";
      std::printf("%u threads, %u%% reads: at most %d readers inside at once\n", threads, read_percent,
                  record.most_readers);
    }
  }
}

TEST(HostSharedMutexAcrossSides, WriterSectionsNeverOverlapWithStandInGpuReaders)
{
  for (unsigned threads : {2u, 4u, 6u}) {
    for (unsigned read_percent : {50u, 90u, 99u}) {
      auto const record = run_mix<unisync::shared_mutex>(threads, read_percent, true);
      EXPECT_EQ(record.overlaps, 0u) << threads << " threads, " << read_percent << "% reads";
      EXPECT_EQ(record.reads + record.writes, std::uint64_t{threads} * sections_per_thread);
    }
  }
}

// Readers overlap: every reader enters while the others are still inside.
template <class Mutex>
void expect_readers_overlap(Mutex& mutex, unsigned readers, side as_odd)
{
  std::atomic<unsigned> inside{0};
  std::atomic<unsigned> all_seen{0};
  run_cpu_actors(readers, [&](unsigned actor) {
    side const as = actor % 2 == 1 ? as_odd : side::cpu;
    if constexpr (Mutex::partitioned) {
      access::lock_shared_as(mutex, as);
    } else {
      mutex.lock_shared();
    }
    inside.fetch_add(1);
    if (unisync::test::eventually([&] { return inside.load() == readers; }, 10s)) all_seen.fetch_add(1);
    if constexpr (Mutex::partitioned) {
      access::unlock_shared_as(mutex, as);
    } else {
      mutex.unlock_shared();
    }
  });
  EXPECT_EQ(all_seen.load(), readers) << "readers did not hold the mutex together";
  EXPECT_EQ(access::reader_words(mutex), 0u);
}

TYPED_TEST(HostSharedMutex, ReadersHoldItTogether)
{
  TypeParam mutex;
  expect_readers_overlap(mutex, 4, side::cpu);
  if constexpr (TypeParam::partitioned) expect_readers_overlap(mutex, 4, side::gpu);
}

TYPED_TEST(HostSharedMutex, TimedFormsGiveUpAndLeaveNoTrace)
{
  auto mutex = std::make_shared<TypeParam>();
  mutex->lock();
  std::thread([&] {
    auto const start = std::chrono::steady_clock::now();
    EXPECT_FALSE(mutex->try_lock_shared_for(20ms));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
    EXPECT_FALSE(mutex->try_lock_shared_until(std::chrono::steady_clock::now() + 5ms));
    EXPECT_FALSE(mutex->try_lock_for(5ms));
    EXPECT_FALSE(mutex->try_lock_shared());
    EXPECT_FALSE(mutex->try_lock());
  }).join();
  EXPECT_EQ(access::reader_words(*mutex), 0u) << "a timed-out reader left its registration";
  mutex->unlock();
  mutex->lock_shared();
  std::thread([&] {
    EXPECT_FALSE(mutex->try_lock_for(10ms)) << "a writer took the mutex while a reader held it";
    EXPECT_TRUE(mutex->try_lock_shared_for(10ms)) << "the timed-out writer left the gate closed";
    mutex->unlock_shared();
  }).join();
  mutex->unlock_shared();
  EXPECT_EQ(access::reader_words(*mutex), 0u);
  // The mutex still works both ways.
  unisync::test::bounded_thread later([mutex] {
    mutex->lock();
    mutex->unlock();
    mutex->lock_shared();
    mutex->unlock_shared();
  });
  EXPECT_TRUE(later.returned_within());
}

TYPED_TEST(HostSharedMutex, WriterAfterAGiveUpWaitsForReadersLateForTheWriterBefore)
{
  // A reader late for writer 1's closed gate that has not yet seen it reopen: writer 2's
  // close waits for it (other parity), so writer 2's try gives up. Writer 3 must wait for
  // it as writer 2 would have, not count it late for itself because its close has writer
  // 1's parity: the reader would then wait out writer 3's batch as well.
  TypeParam mutex;
  mutex.lock();
  cuda::std::uint64_t const stand_in = access::stand_in_late_reader(mutex);
  mutex.unlock();
  EXPECT_FALSE(mutex.try_lock_for(5ms)) << "a writer entered while a reader it waits for was registered";
  bool const taken = mutex.try_lock_for(5ms);
  if (taken) mutex.unlock();
  EXPECT_FALSE(taken) << "the writer after a give-up counted a reader late for the writer before as late for itself";
  EXPECT_FALSE(mutex.try_lock()) << "a try entered while a reader it waits for was registered";
  access::forget_reader(mutex, stand_in);
  EXPECT_EQ(access::reader_words(mutex), 0u);
  // The mutex still works both ways.
  mutex.lock();
  mutex.unlock();
  mutex.lock_shared();
  mutex.unlock_shared();
}

TEST(HostSharedMutexAcrossSides, TimedOutGpuReaderLeavesNoTrace)
{
  unisync::shared_mutex mutex;
  mutex.lock();
  std::thread([&] { EXPECT_FALSE(access::try_lock_shared_for_as(mutex, side::gpu, 10'000'000)); }).join();
  EXPECT_FALSE(access::gpu_reported_present(mutex)) << "the GPU side still says readers are present";
  EXPECT_EQ(access::reader_words(mutex), 0u);
  mutex.unlock();
  access::lock_shared_as(mutex, side::gpu);
  EXPECT_TRUE(access::gpu_reported_present(mutex));
  access::unlock_shared_as(mutex, side::gpu);
  EXPECT_FALSE(access::gpu_reported_present(mutex));
}

/// Runs `try_reads` on one thread while another watches the reader words; returns every
/// bit the watcher saw set.
template <class Mutex, class TryReads>
cuda::std::uint64_t reader_bits_seen_during(Mutex& mutex, TryReads try_reads)
{
  std::atomic<bool> done{false};
  cuda::std::uint64_t seen = 0;
  std::thread watcher([&] {
    while (!done.load(std::memory_order_acquire)) seen |= access::reader_words(mutex);
  });
  try_reads();
  done.store(true, std::memory_order_release);
  watcher.join();
  return seen;
}

constexpr unsigned failed_tries = 5000;

// A writer waiting for its readers to drain polls again whenever it finds one registered:
// tries that registered for an instant at every failure, back to back, kept it polling
// for as long as they went on. At a gate already closed, try_lock_shared() fails without
// registering, and a timed form waits for the gate to move before it registers.
TYPED_TEST(HostSharedMutex, TriesAtAClosedGateNeverRegister)
{
  auto mutex = std::make_unique<TypeParam>();
  mutex->lock();
  cuda::std::uint64_t const seen = reader_bits_seen_during(*mutex, [&] {
    for (unsigned i = 0; i < failed_tries; ++i) {
      EXPECT_FALSE(mutex->try_lock_shared());
      EXPECT_FALSE(mutex->try_lock_shared_for(std::chrono::microseconds(1)));
    }
  });
  EXPECT_EQ(seen, 0u) << "a try at a closed gate registered";
  mutex->unlock();
}

// GPU tries read the gate itself (the first writer, asked by no GPU reader, drops the
// copies), then, once a GPU reader has asked and a writer has kept them, their copies.
TEST(HostSharedMutexAcrossSides, GpuTriesAtAClosedGateNeverRegister)
{
  unisync::shared_mutex mutex;
  auto const gpu_tries_fail_unregistered = [&](char const* reading) {
    mutex.lock();
    cuda::std::uint64_t const seen = reader_bits_seen_during(mutex, [&] {
      for (unsigned i = 0; i < failed_tries; ++i) {
        EXPECT_FALSE(access::try_lock_shared_for_as(mutex, side::gpu, 0));
        EXPECT_FALSE(access::try_lock_shared_for_as(mutex, side::gpu, 1000));
      }
    });
    EXPECT_EQ(seen, 0u) << "a GPU try at a closed gate registered (or published the GPU side's presence), "
                        << reading;
    EXPECT_FALSE(access::gpu_reported_present(mutex));
    mutex.unlock();
  };
  gpu_tries_fail_unregistered("reading the gate");
  std::thread([&] {
    access::lock_shared_as(mutex, side::gpu);  // finds its copy not kept and asks
    access::unlock_shared_as(mutex, side::gpu);
  }).join();
  mutex.lock();
  mutex.unlock();
  ASSERT_TRUE(access::gate_copies_kept(mutex));
  gpu_tries_fail_unregistered("reading its copy");
}

// A timed reader that finds the gate closed waits for it to move, then registers and
// enters, on either side.
TEST(HostSharedMutexAcrossSides, TimedReaderAtAClosedGateEntersOnceTheWriterLeaves)
{
  for (side const reading : {side::cpu, side::gpu}) {
    unisync::shared_mutex mutex;
    mutex.lock();
    unisync::test::bounded_thread reader([&mutex, reading] {
      EXPECT_TRUE(access::try_lock_shared_for_as(mutex, reading, 10'000'000'000)) << "gave up on an open gate";
      access::unlock_shared_as(mutex, reading);
    });
    std::this_thread::sleep_for(10ms);
    mutex.unlock();
    EXPECT_TRUE(reader.returned_within());
    EXPECT_EQ(access::reader_words(mutex), 0u);
  }
}

// GPU readers at a closed gate wait together: one watches its copy of the gate across the
// link for the others. A watcher that gives up hands the role back, and the readers still
// waiting all enter once the writer leaves. The readers read kept copies, as GPU readers
// do once any of them has asked. Threads share the mutex, so that one left behind by a
// failure does not outlive it.
TEST(HostSharedMutexAcrossSides, GpuReadersWaitingTogetherAllEnterOnceTheWriterLeaves)
{
  auto const mutex = std::make_shared<unisync::shared_mutex>();
  mutex->lock();  // drops the copies: no GPU reader has asked yet
  mutex->unlock();
  unisync::test::bounded_thread asking([mutex] {
    access::lock_shared_as(*mutex, side::gpu);  // finds its copy not kept and asks
    access::unlock_shared_as(*mutex, side::gpu);
  });
  ASSERT_TRUE(asking.returned_within());
  mutex->lock();
  ASSERT_TRUE(access::gate_copies_kept(*mutex));
  unisync::test::bounded_thread giving_up([mutex] {
    if (access::try_lock_shared_for_as(*mutex, side::gpu, 1'000'000)) {
      ADD_FAILURE() << "a GPU reader entered beside the writer";
      access::unlock_shared_as(*mutex, side::gpu);
    }
  });
  ASSERT_TRUE(giving_up.returned_within());
  EXPECT_FALSE(access::gpu_gate_watched(*mutex)) << "a reader that gave up kept the watcher's role";
  std::vector<std::unique_ptr<unisync::test::bounded_thread>> readers;
  for (bool const timed : {true, false, true, false}) {
    readers.push_back(std::make_unique<unisync::test::bounded_thread>([mutex, timed] {
      if (!timed) {
        access::lock_shared_as(*mutex, side::gpu);
      } else if (!access::try_lock_shared_for_as(*mutex, side::gpu, 10'000'000'000)) {
        ADD_FAILURE() << "a timed GPU reader missed the writer's exit";
        return;
      }
      access::unlock_shared_as(*mutex, side::gpu);
    }));
  }
  // The untimed readers register and go late; the timed ones wait before registering.
  EXPECT_TRUE(unisync::test::eventually([&] { return access::late_readers(*mutex) == 2; }));
  std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(unisync::test::eventually([&] { return access::gpu_gate_watched(*mutex); }))
      << "no waiting GPU reader watches the gate";
  mutex->unlock();
  for (auto& reader : readers) EXPECT_TRUE(reader->returned_within()) << "a GPU reader missed the writer's exit";
  EXPECT_FALSE(access::gpu_gate_watched(*mutex)) << "the last watcher kept its role";
  EXPECT_EQ(access::reader_words(*mutex), 0u);
}

// The copies of the gate start kept and open, so that GPU readers that come before any
// writer read them; a writer that no GPU reader has asked drops them, so that CPU threads
// alone do not pay for them; from the first GPU reader that then asks, every writer keeps
// them.
TEST(HostSharedMutexAcrossSides, WritersKeepTheGateCopiesOnlyForGpuReaders)
{
  unisync::shared_mutex mutex;
  auto const gpu_reader_passes = [&] {
    std::thread([&] {
      access::lock_shared_as(mutex, side::gpu);
      access::unlock_shared_as(mutex, side::gpu);
    }).join();
  };
  EXPECT_TRUE(access::gate_copies_kept(mutex)) << "a new mutex does not keep copies of its gate";
  gpu_reader_passes();
  EXPECT_FALSE(access::gate_copies_wanted(mutex)) << "a GPU reader that found its copy kept asked for copies";
  mutex.lock();
  EXPECT_TRUE(access::gate_copies_dropped(mutex)) << "a writer that no GPU reader asked kept the copies";
  mutex.unlock();
  mutex.lock_shared();
  mutex.unlock_shared();
  mutex.lock();
  mutex.unlock();
  EXPECT_FALSE(access::gate_copies_wanted(mutex)) << "CPU threads alone asked for copies of the gate";
  EXPECT_TRUE(access::gate_copies_dropped(mutex)) << "CPU threads alone kept copies of the gate";
  gpu_reader_passes();
  EXPECT_TRUE(access::gate_copies_wanted(mutex)) << "a GPU reader that found its copy not kept did not ask";
  mutex.lock();
  EXPECT_TRUE(access::gate_copies_kept(mutex)) << "a writer after the request did not keep the copies";
  mutex.unlock();
  EXPECT_TRUE(access::gate_copies_kept(mutex));
}

// A writer stores every GPU reader's copy of the gate before the gate itself. A GPU reader
// that finds its copy closed in between declares itself late while the gate still reads
// open; the GPU side must still report itself drained once the gate closes, or a CPU writer
// waits for that report forever.
TEST(HostSharedMutexAcrossSides, GpuReaderLateForACopyIsReportedDrainedOnceTheGateCloses)
{
  unisync::shared_mutex mutex;
  access::store_reader_gates(mutex, 1);  // a writer between its copies and the gate
  std::atomic<bool> entered{false};
  std::thread reader([&] {
    access::lock_shared_as(mutex, side::gpu);
    entered = true;
    access::unlock_shared_as(mutex, side::gpu);
  });
  ASSERT_TRUE(unisync::test::eventually([&] { return access::late_readers(mutex) == 1; }));
  access::store_gate(mutex, 1);
  EXPECT_TRUE(unisync::test::eventually([&] { return access::gpu_reported_drained_for(mutex, 1); }))
      << "the GPU side never reported its late reader drained: a CPU writer would wait forever";
  EXPECT_FALSE(entered.load()) << "the reader entered past a closed copy of the gate";
  access::store_reader_gates(mutex, 2);  // reopened
  access::store_gate(mutex, 2);
  reader.join();
  EXPECT_TRUE(entered.load());
  EXPECT_EQ(access::reader_words(mutex), 0u);
}

// A GPU reader late for a close whose writer gave up, alone on its side, holds the report
// while only late readers are left. The open gate after a give-up has a next close of the
// abandoned one's parity: the report holder must not take that for a writer between its
// copies and its gate store, or it looks again for good once no writer comes any more and
// never gets back to its own wait. Here the reader reads its copy closed (1) while the gate
// already reads 4 (the writer closed 1, gave up and reopened), then finds its copy reopened
// too.
TEST(HostSharedMutexAcrossSides, GpuReaderLateForAnAbandonedCloseEntersOnceWritersStop)
{
  auto const mutex = std::make_shared<unisync::shared_mutex>();  // outlives a reader that hangs
  access::store_reader_gates(*mutex, 1);
  access::store_gate(*mutex, 4);
  auto const entered = std::make_shared<std::atomic<bool>>(false);
  unisync::test::bounded_thread reader([mutex, entered] {
    access::lock_shared_as(*mutex, side::gpu);
    entered->store(true);
    access::unlock_shared_as(*mutex, side::gpu);
  });
  ASSERT_TRUE(unisync::test::eventually([&] { return access::late_readers(*mutex) == 1; }));
  access::store_reader_gates(*mutex, 4);
  ASSERT_TRUE(reader.returned_within()) << "the late GPU reader kept looking at the report and never saw its copy reopen";
  EXPECT_TRUE(entered->load());
  EXPECT_EQ(access::reader_words(*mutex), 0u);
  EXPECT_FALSE(access::gpu_reported_present(*mutex));
}

// Readers are not starved by writers, and writers queued behind a writer share its closed
// gate: a reader that finds writer 1 inside, with writers 2, 3, ... queued in that order on
// the writers' lock, enters after the batch of shared_mutex_writer_batch writers (writer 1
// included) and before the writer after it.
TEST(HostSharedMutexAcrossSides, ReaderWaitsForOneBatchOfWritersOnly)
{
  constexpr unsigned batch = unisync::tuning::shared_mutex_writer_batch;
  for (side as : {side::cpu, side::gpu}) {
    unisync::shared_mutex mutex;
    std::atomic<unsigned> order{0};
    std::atomic<unsigned> reader_place{0};
    std::vector<unsigned> writer_places(batch + 1, 0);  // [k]: writer k + 1's place
    mutex.lock();
    std::thread reader([&] {
      access::lock_shared_as(mutex, as);
      reader_place = ++order;
      std::this_thread::sleep_for(20ms);  // the writer after the batch would run now if it could
      access::unlock_shared_as(mutex, as);
    });
    ASSERT_TRUE(unisync::test::eventually([&] { return access::late_readers(mutex) == 1; }));
    std::vector<std::thread> writers;
    for (unsigned writer = 1; writer <= batch; ++writer) {
      auto const tickets = access::writer_tickets(mutex);
      writers.emplace_back([&, writer] {
        mutex.lock();
        writer_places[writer] = ++order;
        mutex.unlock();
      });
      ASSERT_TRUE(unisync::test::eventually([&] { return access::writer_tickets(mutex) != tickets; }));
    }
    mutex.unlock();
    reader.join();
    for (auto& writer : writers) writer.join();
    for (unsigned writer = 1; writer < batch; ++writer) {
      EXPECT_EQ(writer_places[writer], writer) << "writer " << writer + 1 << " did not inherit the closed gate";
    }
    EXPECT_EQ(reader_place.load(), batch) << "the reader waited for more than a batch of writers";
    EXPECT_EQ(writer_places[batch], batch + 1);
    EXPECT_EQ(access::reader_words(mutex), 0u);
  }
}

// Writers are not starved by readers: with readers streaming in on every other thread, the
// writers finish their sections.
TYPED_TEST(HostSharedMutex, WritersFinishWhileReadersStream)
{
  auto mutex = std::make_shared<TypeParam>();
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto writes = std::make_shared<std::atomic<int>>(0);
  std::vector<std::thread> readers;
  for (int reader = 0; reader < 3; ++reader) {
    readers.emplace_back([mutex, stop] {
      while (!stop->load()) {
        mutex->lock_shared();
        std::this_thread::yield();
        mutex->unlock_shared();
      }
    });
  }
  unisync::test::bounded_thread writer([mutex, writes] {
    for (int i = 0; i < 200; ++i) {
      mutex->lock();
      ++*writes;
      mutex->unlock();
    }
  });
  EXPECT_TRUE(writer.returned_within()) << "the writer starved: " << writes->load() << " of 200 sections";
  stop->store(true);
  for (auto& reader : readers) reader.join();
}

TYPED_TEST(HostSharedMutex, WorksWithStdAndUnisyncLocks)
{
  TypeParam mutex;
  unisync::test::section_record record;
  run_cpu_actors(4, [&](unsigned actor) {
    for (int i = 0; i < 500; ++i) {
      switch ((actor + i) % 4) {
        case 0: {
          std::shared_lock<TypeParam> hold(mutex);
          record.enter_shared();
          record.leave_shared();
          break;
        }
        case 1: {
          unisync::shared_lock<TypeParam> hold(mutex);
          record.enter_shared();
          record.leave_shared();
          hold.unlock();
          EXPECT_FALSE(hold.owns_lock());
          break;
        }
        case 2: {
          std::lock_guard<TypeParam> hold(mutex);
          record.exclusive_section();
          break;
        }
        default: {
          std::unique_lock<TypeParam> hold(mutex, 1s);
          EXPECT_TRUE(hold.owns_lock());
          record.exclusive_section();
        }
      }
    }
  });
  EXPECT_EQ(record.overlaps, 0u);
  EXPECT_EQ(record.reads + record.writes, 2000u);
}

#if !defined(__SANITIZE_THREAD__)
// The checker itself: with a lock that excludes nothing, the record sees overlaps.
struct not_a_shared_mutex {
  static constexpr bool partitioned = false;
  void lock() {}
  void unlock() {}
  void lock_shared() {}
  void unlock_shared() {}
};

TEST(HostSharedMutexChecker, DetectsOverlapsWithoutALock)
{
  bool seen = false;
  for (int round = 0; round < 50 && !seen; ++round) {
    unisync::test::section_record record;
    not_a_shared_mutex none;
    run_cpu_actors(4, [&](unsigned actor) {
      unisync::test::read_write_choice choice(actor);
      for (int i = 0; i < 20000; ++i) {
        if (choice.reads(50)) {
          none.lock_shared();
          record.enter_shared();
          record.leave_shared();
        } else {
          record.exclusive_section();
        }
      }
    });
    seen = record.overlaps != 0;
  }
  EXPECT_TRUE(seen);
}
#endif  // !defined(__SANITIZE_THREAD__)

}  // namespace
