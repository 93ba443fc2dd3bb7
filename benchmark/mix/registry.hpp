#pragma once
// Declaring cases: a family, an implementation, its fields, and the cells it runs in.

#include "cell.hpp"
#include "harness.hpp"
#include "placement.hpp"

#include <string>
#include <type_traits>
#include <vector>

namespace unisync::bench {

/// Which sides an implementation can run on: cells it cannot take part in are skipped.
enum class sides { host_only, device_only, both };

struct case_declaration {
  std::string family;  // lock, semaphore, barrier
  std::string impl;    // unisync.mutex, std.mutex, cuda.barrier, ...
  std::string fields;  // "scope:system" or "N:8/scope:system" ...
  sides runs_on = sides::both;
  bool advised = false;  // make_managed applies the type's own per-part advice (place:managed_advised)
};

template <class Case, class = void>
struct has_advised_flag : std::false_type {};
template <class Case>
struct has_advised_flag<Case, std::void_t<decltype(Case::advised)>> : std::true_type {};

inline bool runs_in(case_declaration const& declaration, mix_cell const& cell)
{
  switch (declaration.runs_on) {
    case sides::host_only:
      return !cell.has_gpu();
    case sides::device_only:
      return !cell.has_cpu();
    case sides::both:
      return true;
  }
  return false;
}

/// family/impl:<impl>/<fields>/place:<place>/cpu:<n>/gpu:<b>x<t>
inline std::string case_name(case_declaration const& declaration, mix_cell const& cell)
{
  std::string const place = declaration.runs_on == sides::host_only ? "host" : placement_of(cell, declaration.advised);
  return declaration.family + "/impl:" + declaration.impl + "/" + declaration.fields + "/place:" + place + "/" +
         cell.name();
}

/// The declaration of Case: advised when Case says its object gets its own advice
/// (`static constexpr bool advised`).
template <class Case>
case_declaration declared_for(case_declaration declaration)
{
  if constexpr (has_advised_flag<Case>::value) declaration.advised = Case::advised;
  return declaration;
}

/// Registers `run(state, cell)` for every cell of `cells` the declaration runs in.
template <class Run>
void declare(case_declaration const& declaration, std::vector<mix_cell> const& cells, Run run)
{
  for (mix_cell const& cell : cells) {
    if (!runs_in(declaration, cell)) continue;
    register_case(case_name(declaration, cell), [run, cell](benchmark::State& state) { run(state, cell); });
  }
}

}  // namespace unisync::bench
