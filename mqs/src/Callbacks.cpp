#include "Callbacks.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace mpidbg::mqs {
namespace {
std::atomic<const mqs_basic_callbacks*> gBasic{nullptr};
}

void setBasicCallbacks(const mqs_basic_callbacks* callbacks) noexcept {
  gBasic.store(callbacks, std::memory_order_release);
}

const mqs_basic_callbacks* basicCallbacks() noexcept {
  const mqs_basic_callbacks* cb = gBasic.load(std::memory_order_acquire);
  if (cb == nullptr || cb->mqs_put_image_info_fp == nullptr ||
      cb->mqs_get_image_info_fp == nullptr || cb->mqs_put_process_info_fp == nullptr ||
      cb->mqs_get_process_info_fp == nullptr)
    return nullptr;
  return cb;
}

void debugPrint(const char* format, ...) noexcept {
  const mqs_basic_callbacks* cb = gBasic.load(std::memory_order_acquire);
  if (cb == nullptr || cb->mqs_dprints_fp == nullptr) return;
  char line[512];
  const int prefix = std::snprintf(line, sizeof line, "mpidbg-mqs: ");
  va_list args;
  va_start(args, format);
  std::vsnprintf(line + prefix, sizeof line - static_cast<std::size_t>(prefix), format, args);
  va_end(args);
  cb->mqs_dprints_fp(line);
}

}  // namespace mpidbg::mqs
