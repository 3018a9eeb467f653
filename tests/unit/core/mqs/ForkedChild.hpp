#pragma once

// A forked copy of the test process that sets known values and then waits,
// so the mqs host's readers have a real process (same executable, same
// layout as the parent) to read. Killed and reaped on scope exit.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

extern "C" {
/// Globals the tests look up by name in the child (C linkage, so .symtab
/// holds them unmangled). The child overwrites them after the fork.
extern std::uint64_t mpidbg_mqs_test_value;
extern char mpidbg_mqs_test_text[32];
}

/// A type with DWARF in the test binary, for mqs_find_type tests.
struct MqsTestRecord {
  int first;
  double second;
  char name[10];
  long tail;
  union {
    int anonInt;
    short anonShort;
  };
};
extern MqsTestRecord mpidbg_mqs_test_record;

namespace mqs_test {

/// `p` as a target address.
inline std::uint64_t addressOf(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

/// The path of this test binary (/proc/self/exe).
inline std::string selfExe() {
  char exe[4096] = {};
  REQUIRE(::readlink("/proc/self/exe", exe, sizeof exe - 1) > 0);
  return exe;
}

/// The value the child stores in mpidbg_mqs_test_value.
inline constexpr std::uint64_t kChildValue = 0x0123456789abcdefULL;
/// The text the child stores in mpidbg_mqs_test_text.
inline constexpr char kChildText[] = "hello from the child";

class ForkedChild {
 public:
  ForkedChild() {
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(ready[0]);
      mpidbg_mqs_test_value = kChildValue;
      for (std::size_t i = 0; i < sizeof kChildText; ++i) mpidbg_mqs_test_text[i] = kChildText[i];
      mpidbg_mqs_test_record.tail = 77;
      char byte = 1;
      (void)!::write(ready[1], &byte, 1);
      for (int i = 0; i < 600; ++i) ::sleep(1);  // bounded: killed by the parent long before
      ::_exit(0);
    }
    ::close(ready[1]);
    char byte = 0;
    ssize_t n;
    while ((n = ::read(ready[0], &byte, 1)) < 0 && errno == EINTR) {
    }
    ::close(ready[0]);
    REQUIRE(n == 1);
  }
  ~ForkedChild() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ForkedChild(const ForkedChild&) = delete;
  ForkedChild& operator=(const ForkedChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

/// The error message of `result`, or "" (for INFO/CAPTURE).
template <typename T>
std::string why(const T& result) {
  return result ? std::string() : result.error().message;
}

}  // namespace mqs_test

namespace mqs_test {

/// A private temporary directory, removed with its contents on scope exit.
class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/mpidbg-mqshost-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// True in an AddressSanitizer or ThreadSanitizer build (scripts/test
/// --sanitize / --tsan). A core of a forked child of this process would then
/// hold the sanitizer's shadow memory: gcore wrote 51 GB for one and filled
/// the disk. The tests that make cores skip there (MQS_TEST_SKIP_CORES).
inline constexpr bool kSanitizedBuild =
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    true;
#else
    false;
#endif

/// At the top of a test that makes a core with makeCore(): in a sanitizer
/// build, says why it does nothing and returns.
#define MQS_TEST_SKIP_CORES()                                                                  \
  do {                                                                                         \
    if (mqs_test::kSanitizedBuild) {                                                           \
      WARN("skipped in a sanitizer build: a core of a sanitized process holds its shadow " \
           "memory (tens of GB)");                                                             \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

/// Dumps `pid` with gdb's gcore into `dir` (bounded to 120 s); the core's
/// path, or "" when gcore failed.
inline std::string makeCore(pid_t pid, const std::string& dir) {
  const std::string prefix = dir + "/core";
  const std::string command =
      "timeout -k 5 120 gcore -o " + prefix + " " + std::to_string(pid) + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return "";
  const std::string path = prefix + "." + std::to_string(pid);
  return std::filesystem::exists(path) ? path : "";
}

}  // namespace mqs_test
