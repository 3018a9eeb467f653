#pragma once

// Typed CCS handlers (issue 25, item 2): a handler names its request and
// reply types, declared once in ccs/proto (their field lists), and never
// touches bytes: decoding the request and encoding the reply, record
// separator included, come from ccs/proto/Message.hpp.

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "Guarded.hpp"
#include "ccs/proto/BinaryMessage.hpp"
#include "ccs/proto/Message.hpp"
#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

namespace typed {

template <typename T>
struct OptionalOf : std::false_type {};
template <typename T>
struct OptionalOf<std::optional<T>> : std::true_type {
  using Value = T;
};

/// The request's data decoded as Request (proto::NoData: not decoded, any
/// data ignored; a binary message: ccs/proto/BinaryMessage.hpp;
/// std::optional<R>: none for empty data, an R otherwise), or the decoder's
/// error.
template <typename Request>
Expected<Request> requestOf(const ccs::Request& request) {
  if constexpr (std::is_same_v<Request, ccs::proto::NoData>) {
    return Request{};
  } else if constexpr (OptionalOf<Request>::value) {
    if (request.data.empty()) return Request{};
    auto value = requestOf<typename OptionalOf<Request>::Value>(request);
    if (!value) return std::unexpected(value.error());
    return Request{std::move(*value)};
  } else if constexpr (ccs::proto::BinaryDescribed<Request>) {
    return ccs::proto::decodeBinary<Request>(request.data);
  } else {
    const std::string_view text(reinterpret_cast<const char*>(request.data.data()), request.data.size());
    return ccs::proto::decodeRecord<Request>(text);
  }
}

/// `reply` as the handler's answer (ccs/proto/Message.hpp encodeReply; a
/// binary message: encodeBinary).
template <typename Reply>
ccs::HandlerResult bytesOfReply(const Reply& reply) {
  if constexpr (ccs::proto::BinaryDescribed<Reply>) {
    return ccs::proto::encodeBinary(reply);
  } else {
    const std::string text = ccs::proto::encodeReply(reply);
    return std::vector<std::uint8_t>(text.begin(), text.end());
  }
}

}  // namespace typed

/// Registers handler `name` on `server`: `fn(const Request&)` returns the
/// Reply. A request that does not decode and an exception thrown by `fn`
/// are handler errors (an empty reply and a log line, as guardedWith).
template <typename Request, typename Reply, typename Fn>
void on(ccs::Server& server, std::string_view name, Fn fn) {
  static_assert(std::is_invocable_r_v<Reply, const Fn&, const Request&>, "the handler takes the Request, returns the Reply");
  server.addHandler(std::string(name),
                    guardedWith(
                        [fn = std::move(fn)](const ccs::Request& request) -> ccs::HandlerResult {
                          auto decoded = typed::requestOf<Request>(request);
                          if (!decoded) return fail(decoded.error().message);
                          return typed::bytesOfReply<Reply>(fn(*decoded));
                        },
                        [](const std::string& message) -> ccs::HandlerResult { return fail(message); }));
}

/// The same for a reply that carries its failures: a request that does not
/// decode, and an exception thrown by `fn`, are answered with
/// `errorReply(message)`.
template <typename Request, typename Reply, typename Fn, typename ErrorReply>
void on(ccs::Server& server, std::string_view name, Fn fn, ErrorReply errorReply) {
  static_assert(std::is_invocable_r_v<Reply, const Fn&, const Request&>, "the handler takes the Request, returns the Reply");
  static_assert(std::is_invocable_r_v<Reply, const ErrorReply&, std::string>, "errorReply takes a message");
  server.addHandler(std::string(name),
                    guardedWith(
                        [fn = std::move(fn), errorReply](const ccs::Request& request) -> ccs::HandlerResult {
                          auto decoded = typed::requestOf<Request>(request);
                          if (!decoded) return typed::bytesOfReply<Reply>(errorReply(decoded.error().message));
                          return typed::bytesOfReply<Reply>(fn(*decoded));
                        },
                        [errorReply](const std::string& message) -> ccs::HandlerResult {
                          return typed::bytesOfReply<Reply>(errorReply(message));
                        }));
}

}  // namespace mpidbg::rt
