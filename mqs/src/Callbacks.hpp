#pragma once

#include "mpi_interface.h"

namespace mpidbg::mqs {

/// Keeps the debugger's basic callback table (mqs_setup_basic_callbacks);
/// the table stays the debugger's. Null clears it.
void setBasicCallbacks(const mqs_basic_callbacks* callbacks) noexcept;

/// The basic callback table, or null when the debugger gave none or one
/// without the info put/get functions the DLL cannot work without.
const mqs_basic_callbacks* basicCallbacks() noexcept;

/// Prints one line prefixed "mpidbg-mqs: " through mqs_dprints_fp, when the
/// debugger gave one; the details an error code cannot carry (which layout
/// row is missing, which slot was skipped). At most 511 bytes.
void debugPrint(const char* format, ...) noexcept __attribute__((format(printf, 1, 2)));

}  // namespace mpidbg::mqs
