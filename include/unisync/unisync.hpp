#pragma once
// Everything unisync offers. Compiles under nvcc and under a host-only C++17 compiler.

#include <unisync/backoff.hpp>
#include <unisync/barrier.hpp>
#include <unisync/capabilities.hpp>
#include <unisync/co_resident_launch.hpp>
#include <unisync/cohort_mutex.hpp>
#include <unisync/counting_semaphore.hpp>
#include <unisync/error.hpp>
#include <unisync/latch.hpp>
#include <unisync/lock_guard.hpp>
#include <unisync/managed.hpp>
#include <unisync/mutex.hpp>
#include <unisync/partitioned_barrier.hpp>
#include <unisync/partitioned_semaphore.hpp>
#include <unisync/placement.hpp>
#include <unisync/scoped_lock.hpp>
#include <unisync/shared_lock.hpp>
#include <unisync/shared_mutex.hpp>
#include <unisync/ticket_mutex.hpp>
#include <unisync/topology.hpp>
#include <unisync/tuning.hpp>
#include <unisync/unique_lock.hpp>
