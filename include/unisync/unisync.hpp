#pragma once
// Everything unisync offers. Compiles under nvcc and under a host-only C++17 compiler.

#include <unisync/backoff.hpp>
#include <unisync/capabilities.hpp>
#include <unisync/co_resident_launch.hpp>
#include <unisync/error.hpp>
#include <unisync/managed.hpp>
#include <unisync/placement.hpp>
#include <unisync/topology.hpp>
