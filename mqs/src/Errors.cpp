#include "Errors.hpp"

#include <array>
#include <string>

namespace mpidbg::mqs {
namespace {

struct CodeText {
  int code;
  const char* text;
};

// One row per code; the order need not follow the enum.
constexpr CodeText kTexts[] = {
    {mqs_ok, "no error"},
    {mqs_no_information,
     "not kept by the mpidbg runtime (it sits above MPI through PMPI, so it cannot see the MPI "
     "library's unexpected-message queue)"},
    {mqs_end_of_list, "no more items in this list"},
    {kErrNoBasicCallbacks,
     "the debugger did not call mqs_setup_basic_callbacks (or gave incomplete callbacks) before "
     "using the message-queue DLL"},
    {kErrMissingCallback,
     "a callback the message-queue DLL needs (find symbol, fetch data, get image) is missing from "
     "the debugger's tables"},
    {kErrBadArgument,
     "a null pointer or out-of-range argument was passed to the message-queue DLL"},
    {kErrNoImageInfo,
     "the debugger did not call mqs_setup_image for this process's image before mqs_setup_process"},
    {kErrNoProcessInfo, "the debugger did not call mqs_setup_process for this process"},
    {kErrNoRuntime,
     "no mpidbg runtime in this image (symbol mpidbg_layout not found): run the program under "
     "mpidbg or preload libmpidbg-rt.so"},
    {kErrNoStateSymbol,
     "the mpidbg runtime's state root (symbol mpidbg_state) was not found although mpidbg_layout "
     "was: the runtime is incomplete or a different version"},
    {kErrFetchFailed,
     "reading the target's memory failed (the process is gone, detached, or an address in the "
     "runtime's state points to unmapped memory)"},
    {kErrBadAddress, "the runtime's state holds a null or wrapping address where data must be"},
    {kErrLayoutMagic,
     "the mpidbg_layout table does not start with the magic \"MPIDBGS1\" (corrupt memory or not an "
     "mpidbg runtime)"},
    {kErrLayoutVersion,
     "the mpidbg_layout table has a version this DLL does not read: use the libmpidbg-mqs.so "
     "installed with the same mpidbg as the runtime"},
    {kErrLayoutCount, "the mpidbg_layout table claims no rows or more rows than it has room for"},
    {kErrLayoutName,
     "a row of the mpidbg_layout table has an unterminated type or field name, or appears twice"},
    {kErrLayoutMissingRow,
     "the mpidbg_layout table lacks a type or field this DLL needs: runtime and DLL are from "
     "different mpidbg versions"},
    {kErrLayoutFieldSize,
     "a field in the mpidbg_layout table has a size this DLL does not expect or lies outside its "
     "type"},
    {kErrLayoutTypeSize, "a type in the mpidbg_layout table has size zero or an absurd size"},
    {kErrNotAttached,
     "the mpidbg runtime has not attached (the process has not reached MPI_Init, or it runs "
     "without the mpidbg front end)"},
    {kErrRootMagic, "the mpidbg_state root has a wrong magic number (corrupt memory)"},
    {kErrCapacity,
     "a capacity, count or size in the runtime's state is beyond this DLL's limits (corrupt "
     "memory)"},
    {kErrNameTable, "the runtime's table of MPI function names is malformed"},
    {kErrTorn,
     "a record kept changing while it was read (the process is running: stop it and retry)"},
    {kErrNoCurrentComm,
     "no current communicator: call mqs_setup_communicator_iterator first (or the list ended)"},
    {kErrBadOpClass, "unknown operation class passed to mqs_setup_operation_iterator"},
    {kErrBadCollClass, "unknown collective class (valid: 0 to 13, mqs_comm_class order)"},
    {kErrCommGroupUnknown, "the runtime did not record the world ranks of this communicator"},
    {kErrOutOfMemory, "the message-queue DLL ran out of memory"},
    {kErrInternal, "internal error in the message-queue DLL"},
};

constexpr const char* kUnknown = "unknown error code (not one of libmpidbg-mqs.so's)";

}  // namespace

const char* errorText(int code) noexcept {
  for (const auto& row : kTexts)
    if (row.code == code) return row.text;
  return kUnknown;
}

const char* complaintFor(int code) noexcept {
  constexpr int kFirstUser = mqs_first_user_code, kEnd = kErrEnd_;
  constexpr int kCount = kEnd - kFirstUser + 3;
  // Index: the three predefined codes (0, 1, 2), then the DLL's own.
  auto index = [](int c) -> int {
    if (c >= mqs_ok && c <= mqs_end_of_list) return c;
    if (c >= kFirstUser && c < kEnd) return c - kFirstUser + 3;
    return -1;
  };
  try {
    static const std::array<std::string, kCount> built = [&] {
      std::array<std::string, kCount> out;
      auto make = [](int c) {
        std::string s = "mpidbg message queues of %s: ";
        for (const char* p = errorText(c); *p; ++p) {
          s += *p;
          if (*p == '%') s += '%';  // keep exactly one conversion
        }
        return s;
      };
      for (int c = mqs_ok; c <= mqs_end_of_list; ++c) out[index(c)] = make(c);
      for (int c = kFirstUser; c < kEnd; ++c) out[index(c)] = make(c);
      return out;
    }();
    const int i = index(code);
    if (i >= 0) return built[i].c_str();
  } catch (...) {
  }
  return "mpidbg message queues of %s: unavailable";
}

}  // namespace mpidbg::mqs
