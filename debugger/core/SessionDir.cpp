#include "debugger/core/SessionDir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ccs/transport/Auth.hpp"
#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::core {

Expected<std::unique_ptr<SessionDir>> SessionDir::create(Readers readers) {
  const char* tmp = std::getenv("TMPDIR");
  const char* home = std::getenv("HOME");
  Parent parent = Parent::Tmp;
  std::string base = "/tmp";
  if (tmp && *tmp) {
    parent = Parent::TmpDir;
    base = tmp;
  } else if (readers == Readers::OtherHosts && home && *home) {
    parent = Parent::Home;
    base = std::string(home) + "/.mpidbg";
    if (::mkdir(base.c_str(), 0700) != 0 && errno != EEXIST)
      return fail("cannot create " + base + ": " + std::strerror(errno));
  }
  std::string pattern = base + "/mpidbg-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    return fail("cannot create session directory " + pattern + ": " + std::strerror(errno));
  std::unique_ptr<SessionDir> dir(new SessionDir());
  dir->path_ = pattern;  // mkdtemp creates it with mode 0700
  dir->parent_ = parent;

  auto key = ccs::randomBytes(kSessionKeyBytes);
  if (!key) return std::unexpected(key.error());
  dir->key_ = std::move(*key);

  const std::string file = dir->keyFile();
  ScopedFd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid()) return fail("cannot create key file " + file + ": " + std::strerror(errno));
  const std::string text = toHex(dir->key_) + "\n";
  if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    return fail("cannot write key file " + file + ": " + std::strerror(errno));
  return dir;
}

SessionDir::~SessionDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

}  // namespace mpidbg::core
