#pragma once

#include <expected>

#include "mpi_interface.h"

namespace mpidbg::mqs {

/// The DLL's own result codes (>= mqs_first_user_code). Their text, for
/// mqs_dll_error_string, is errorText(); their printf-style complaint, for
/// mqs_image_has_queues / mqs_process_has_queues, is complaintFor().
enum Err : int {
  kErrNoBasicCallbacks = mqs_first_user_code,
  kErrMissingCallback,
  kErrBadArgument,
  kErrNoImageInfo,
  kErrNoProcessInfo,
  kErrNoRuntime,
  kErrNoStateSymbol,
  kErrFetchFailed,
  kErrBadAddress,
  kErrLayoutMagic,
  kErrLayoutVersion,
  kErrLayoutCount,
  kErrLayoutName,
  kErrLayoutMissingRow,
  kErrLayoutFieldSize,
  kErrLayoutTypeSize,
  kErrNotAttached,
  kErrRootMagic,
  kErrCapacity,
  kErrNameTable,
  kErrTorn,
  kErrNoCurrentComm,
  kErrBadOpClass,
  kErrBadCollClass,
  kErrCommGroupUnknown,
  kErrOutOfMemory,
  kErrInternal,
  kErrEnd_  ///< one past the last code
};

/// A value, or one of the codes above (or mqs_no_information).
template <typename T>
using Result = std::expected<T, int>;

/// Shorthand for the failing side of a Result.
inline std::unexpected<int> failWith(int code) { return std::unexpected<int>(code); }

/// One sentence saying what `code` means and what to do about it: the DLL's
/// codes, the three predefined ones, and a fallback for anything else.
/// Static storage; never null.
const char* errorText(int code) noexcept;

/// A printf format with exactly one %s (the image name), built from
/// errorText(code), as mqs_image_has_queues returns it. Static storage.
const char* complaintFor(int code) noexcept;

}  // namespace mpidbg::mqs
