// mpidbg entry points for C++: a scoped marker and a template with the name
// as a compile-time string. Same cost and rules as MPIDBG_ENTRY (mpidbg.h).
#pragma once

#include <cstddef>

#include "mpidbg/mpidbg.h"

namespace mpidbg {

/// A string literal usable as a template argument: entry<"solver::step">().
template <std::size_t N>
struct EntryName {
  constexpr EntryName(const char (&text)[N]) noexcept {  // NOLINT: implicit on purpose
    for (std::size_t i = 0; i < N; ++i) value[i] = text[i];
  }
  char value[N]{};
};

/// Marks entry point `Name` (one call site per distinct name): a safe point
/// for `break entry NAME`, freeze and step. Costs a null check and one relaxed
/// load when nothing is armed; a null check without the runtime.
template <EntryName Name>
inline void entry() noexcept {
  static mpidbg_entry_site site = {Name.value, 0, 0, 0};
  mpidbg_entry_(&site);
}

/// Marks the entry point on construction, for code that prefers an object at
/// the top of a phase: `mpidbg::EntryScope scope(site)` with a static
/// mpidbg_entry_site, or MPIDBG_ENTRY_SCOPE("name"). Destruction does nothing
/// today (reserved for phase-exit breakpoints).
class EntryScope {
 public:
  explicit EntryScope(mpidbg_entry_site& site) noexcept { mpidbg_entry_(&site); }
  EntryScope(const EntryScope&) = delete;
  EntryScope& operator=(const EntryScope&) = delete;
};

}  // namespace mpidbg

#define MPIDBG_ENTRY_CAT2_(a, b) a##b
#define MPIDBG_ENTRY_CAT_(a, b) MPIDBG_ENTRY_CAT2_(a, b)
/// Declares a static site for `name` and a ::mpidbg::EntryScope over it that
/// lives to the end of the enclosing block.
#define MPIDBG_ENTRY_SCOPE(name)                                                                      \
  static mpidbg_entry_site MPIDBG_ENTRY_CAT_(mpidbg_entry_site_, __LINE__) = {(name), 0, 0, 0};      \
  ::mpidbg::EntryScope MPIDBG_ENTRY_CAT_(mpidbg_entry_scope_, __LINE__)(                              \
      MPIDBG_ENTRY_CAT_(mpidbg_entry_site_, __LINE__))
