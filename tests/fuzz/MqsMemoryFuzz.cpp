// libFuzzer target: the message-queue DLL (libmpidbg-mqs.so, mqs/src/)
// reading garbage target memory. The DLL is dlopened from its instrumented
// build (MPIDBG_MQS_DLL) and reads a fake process (tests/unit/mqs/FakeTarget)
// holding the standard valid rank (MqsJob.hpp), which the input then mutates
// byte by byte; the DLL must never crash, and every answer must be well
// formed: result codes the interface knows, strings NUL-terminated within
// their arrays, sizes within the documented bounds.
//
// Input: byte 0 chooses the rank's byte order and layout table shape; the
// rest is read as 4-byte records (selector, offset low, offset high, value):
//   selector & 0x0f  which memory region (mod the region count, by base order)
//   selector & 0x10  the layout table may be hit; without it a hit on the
//                    table goes to the root state record instead (a corrupt
//                    table is mostly refused early, so most runs keep it)
//   selector & 0x20  truncate the region to the offset instead of writing
//   selector & 0x40  make fetch number `offset` fail (value bit 0: and every
//                    later one too), as a target that unmaps memory would
// Offsets are taken modulo the region's size.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "FuzzCheck.hpp"
#include "MqsJob.hpp"

using namespace mpidbg::mqs::test;

namespace {

/// Ranks in one communicator the DLL accepts (StateReader::kMaxCommSize);
/// larger sizes must be skipped, never reported.
constexpr int kMaxCommSize = 1 << 22;
/// Request handles mpidbg_mqs_call can carry (its requests[] array).
constexpr int kCallRequests = 64;

/// True when `code` is one the interface allows the DLL to return: a
/// predefined code, or one of the DLL's own codes that it can describe.
bool knownCode(const Dll& dll, int code) {
  if (code == mqs_ok || code == mqs_no_information || code == mqs_end_of_list) return true;
  if (code < mqs_first_user_code) return false;
  const char* text = dll.errorString(code);
  return text != nullptr && std::strstr(text, "unknown error code") == nullptr;
}

/// True when `s` holds a NUL within its `size` bytes.
bool terminated(const char* s, std::size_t size) { return std::memchr(s, 0, size) != nullptr; }

/// Asks everything a debugger asks (the unit test's exercise in
/// MqsHostileTest.cpp, with FUZZ_CHECK) and checks each answer.
void exercise(DllSession& s) {
  const Dll& dll = s.dll;
  int code = -1;
  s.communicators(&code);  // mqs_update_communicator_list and one pass
  FUZZ_CHECK(knownCode(dll, code));
  for (code = dll.setupCommunicatorIterator(s.process()); code == mqs_ok;
       code = dll.nextCommunicator(s.process())) {
    mqs_communicator c;
    std::memset(&c, 0x5a, sizeof c);  // garbage the DLL must overwrite
    FUZZ_CHECK(dll.getCommunicator(s.process(), &c) == mqs_ok);
    FUZZ_CHECK(terminated(c.name, sizeof c.name));
    FUZZ_CHECK(c.size > 0 && c.size <= kMaxCommSize);
    FUZZ_CHECK(c.local_rank >= 0 && c.local_rank < c.size);
    // Exactly c.size entries: ASan reports a DLL that writes more.
    std::vector<int> ranks(static_cast<std::size_t>(c.size));
    FUZZ_CHECK(knownCode(dll, dll.getCommGroup(s.process(), ranks.data())));
    for (int cls : {int{mqs_pending_sends}, int{mqs_pending_receives},
                    int{mqs_unexpected_messages}, int{MPIDBG_MQS_PENDING_COLLECTIVES}}) {
      auto ops = s.operations(cls, &code);
      FUZZ_CHECK(knownCode(dll, code));
      for (const auto& o : ops) {
        for (const auto& line : o.op.extra_text) FUZZ_CHECK(terminated(line, sizeof line));
        FUZZ_CHECK(terminated(o.detail.function, sizeof o.detail.function));
        FUZZ_CHECK(o.detail.coll_class >= -1 && o.detail.coll_class < mqs_comm_class_count);
      }
    }
    for (int cls = 0; cls < mqs_comm_class_count; ++cls) {
      int count = -1, active = -1;
      FUZZ_CHECK(knownCode(dll, dll.getCommCollState(s.process(), cls, &count, &active)));
    }
    // Out-of-range classes are refused, not read past a table.
    int count = -1, active = -1;
    FUZZ_CHECK(knownCode(dll, dll.getCommCollState(s.process(), mqs_comm_class_count, &count,
                                                   &active)));
    mqs_taddr_t seq;
    FUZZ_CHECK(knownCode(dll, dll.getCommCollSeq(s.process(), &seq)));
  }
  FUZZ_CHECK(knownCode(dll, code));

  mpidbg_mqs_call call;
  std::memset(&call, 0x5a, sizeof call);
  code = dll.getCall(s.process(), &call);
  FUZZ_CHECK(knownCode(dll, code));
  if (code == mqs_ok) {
    FUZZ_CHECK(terminated(call.function, sizeof call.function));
    FUZZ_CHECK(call.request_count >= 0 && call.request_count <= kCallRequests);
  }
  for (const auto& r : s.history(&code)) FUZZ_CHECK(terminated(r.function, sizeof r.function));
  FUZZ_CHECK(knownCode(dll, code));
}

/// Fetch failures chosen by the input: fetch number `at` fails, and every
/// later one too when `sticky`.
struct FetchFault {
  int at = 0;
  bool sticky = false;
};

}  // namespace

/// Loads the DLL before fuzzing starts, so libFuzzer lists its coverage
/// counters with the executable's at start-up rather than mid-run.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)Dll::get();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t shape = size > 0 ? data[0] : 0;
  // Both byte orders, both field orders, with and without the "Added" fields
  // (root.op_overflow, op.version, coll.stamp), as the unit tests build them.
  auto job = standardJob((shape & 1) != 0,
                         FakeLayout::standard((shape >> 1) & 1, 4, ((shape >> 2) & 1) == 0));
  const std::vector<std::uint64_t> bases = job->target.regionBases();

  std::optional<FetchFault> fault;
  for (std::size_t i = 1; i + 4 <= size; i += 4) {
    const std::uint8_t selector = data[i];
    const std::uint32_t offset = data[i + 1] | (std::uint32_t{data[i + 2]} << 8);
    const std::uint8_t value = data[i + 3];
    if ((selector & 0x40) != 0) {
      fault = FetchFault{static_cast<int>(offset), (value & 1) != 0};
      continue;
    }
    std::uint64_t base = bases[(selector & 0x0f) % bases.size()];
    if (base == job->layoutAddress && (selector & 0x10) == 0) base = job->state;
    auto& bytes = job->target.region(base);
    if (bytes.empty()) continue;
    if ((selector & 0x20) != 0)
      bytes.resize(offset % bytes.size());
    else
      bytes[offset % bytes.size()] = static_cast<std::byte>(value);
  }
  if (fault) {
    // Counts from the start of this session's fetches.
    job->target.onFetch = [f = *fault, &target = job->target](std::uint64_t, int) {
      const int n = target.fetches - 1;  // cbFetch counts this fetch before asking
      return f.sticky ? n < f.at : n != f.at;
    };
  }

  clearDebugLines();  // the lines accumulate across runs otherwise
  DllSession s(job->target);
  FUZZ_CHECK(knownCode(s.dll, s.imageCode));
  FUZZ_CHECK(knownCode(s.dll, s.processCode));
  FUZZ_CHECK(knownCode(s.dll, s.hasQueuesCode));
  // A message must be a C string: strlen over an unterminated one is an ASan report.
  if (s.processMessage != nullptr) FUZZ_CHECK(std::strlen(s.processMessage) < 4096);
  if (s.imageMessage != nullptr) FUZZ_CHECK(std::strlen(s.imageMessage) < 4096);
  exercise(s);
  clearDebugLines();
  return 0;
}
