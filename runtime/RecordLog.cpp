// The decision log writer (RecordLog.hpp).
#include "RecordLog.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace mpidbg::rt {

std::string RecordLog::create(std::string path, std::int32_t rank, std::int32_t size) {
  path_ = std::move(path);
  fd_.reset(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd_.valid()) return "cannot create " + path_ + ": " + std::strerror(errno);
  encoder_ = std::make_unique<record::Encoder>(rank, size);
  encoder_->reserve(kFlushBytes + 1024);
  return {};
}

int RecordLog::writeOut() noexcept {
  if (!fd_.valid() || !encoder_) return 0;
  const std::string& bytes = encoder_->pending();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      fd_.reset();
      return error;
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += done;
  encoder_->consumed();
  return 0;
}

int RecordLog::add(const record::Decision& decision) {
  if (!active()) return 0;
  encoder_->add(decision);
  ++byKind_[static_cast<std::size_t>(decision.kind)];
  return encoder_->pending().size() >= kFlushBytes ? writeOut() : 0;
}

int RecordLog::finish() noexcept {
  if (!active()) return 0;
  try {
    encoder_->finish();
  } catch (...) {
    encoder_->sealRun();
  }
  const int error = writeOut();
  finished_ = true;
  fd_.reset();
  return error;
}

int RecordLog::flushForSignal() noexcept {
  if (!encoder_ || !active()) return 0;
  // The buffer has room reserved: sealing the run does not allocate.
  encoder_->sealRun();
  return writeOut();
}

std::string RecordLog::countsByKind() const {
  std::string text;
  for (std::size_t k = 1; k < byKind_.size(); ++k) {
    if (byKind_[k] == 0) continue;
    if (!text.empty()) text += ",";
    text += std::string(record::functionOf(static_cast<record::DecisionKind>(k))) + ":" + std::to_string(byKind_[k]);
  }
  return text;
}

}  // namespace mpidbg::rt
