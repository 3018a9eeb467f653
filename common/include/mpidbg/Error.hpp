#pragma once

#include <expected>
#include <string>
#include <utility>

namespace mpidbg {

/// An error a user can act on: one sentence, no trailing newline, naming the
/// thing that failed and why ("cannot connect to rank 3 at 127.0.0.1:4100:
/// connection refused"). Returned through std::expected by everything that can
/// fail on input; never thrown.
struct Error {
  std::string message;
};

/// Shorthand for the failing side of a std::expected.
inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected<Error>(Error{std::move(message)});
}

/// Result type used across mpidbg: a value or an Error.
template <typename T>
using Expected = std::expected<T, Error>;

}  // namespace mpidbg
