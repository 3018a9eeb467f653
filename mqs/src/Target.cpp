#include "Target.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace mpidbg::mqs {

Result<void> Target::fetch(mqs_taddr_t address, std::span<std::byte> out) const {
  if (out.empty()) return {};
  if (callbacks_ == nullptr || callbacks_->mqs_fetch_data_fp == nullptr)
    return failWith(kErrMissingCallback);
  if (out.size() > kMaxRead) return failWith(kErrCapacity);
  if (address == 0 || address > std::numeric_limits<mqs_taddr_t>::max() - out.size())
    return failWith(kErrBadAddress);
  constexpr std::size_t kPiece = 1u << 20;
  for (std::size_t done = 0; done < out.size();) {
    const std::size_t n = std::min(kPiece, out.size() - done);
    if (callbacks_->mqs_fetch_data_fp(process_, address + done, static_cast<int>(n),
                                      out.data() + done) != mqs_ok)
      return failWith(kErrFetchFailed);
    done += n;
  }
  return {};
}

Result<std::vector<std::byte>> Target::fetchBytes(mqs_taddr_t address, std::size_t size) const {
  if (size > kMaxRead) return failWith(kErrCapacity);
  std::vector<std::byte> bytes(size);
  if (auto ok = fetch(address, bytes); !ok) return std::unexpected(ok.error());
  return bytes;
}

std::uint64_t Target::toUnsigned(const std::byte* in, std::size_t size) const noexcept {
  if (size != 1 && size != 2 && size != 4 && size != 8) return 0;
  unsigned char host[8] = {};
  if (callbacks_ != nullptr && callbacks_->mqs_target_to_host_fp != nullptr)
    callbacks_->mqs_target_to_host_fp(process_, in, host, static_cast<int>(size));
  else
    std::memcpy(host, in, size);
  switch (size) {
    case 1:
      return host[0];
    case 2: {
      std::uint16_t v;
      std::memcpy(&v, host, 2);
      return v;
    }
    case 4: {
      std::uint32_t v;
      std::memcpy(&v, host, 4);
      return v;
    }
    default: {
      std::uint64_t v;
      std::memcpy(&v, host, 8);
      return v;
    }
  }
}

std::int64_t Target::toSigned(const std::byte* in, std::size_t size) const noexcept {
  const std::uint64_t u = toUnsigned(in, size);
  switch (size) {
    case 1:
      return static_cast<std::int8_t>(u);
    case 2:
      return static_cast<std::int16_t>(u);
    case 4:
      return static_cast<std::int32_t>(u);
    default:
      return static_cast<std::int64_t>(u);
  }
}

std::string cleanText(std::span<const std::byte> bytes, std::size_t limit) {
  std::string text;
  for (std::size_t i = 0; i < bytes.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) break;
    text += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  return text;
}

void copyText(const std::string& text, char* out, std::size_t size) noexcept {
  if (size == 0) return;
  const std::size_t n = std::min(text.size(), size - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

}  // namespace mpidbg::mqs
