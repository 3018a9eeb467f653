#pragma once

#include <exception>
#include <string>
#include <utility>

#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

/// Wraps a CCS handler body so no exception escapes the helper thread (the
/// runtime lives inside the application): an exception becomes
/// `onError("handler failed: <what>")`, whose result is the handler's answer.
template <typename Body, typename OnError>
ccs::Handler guardedWith(Body body, OnError onError) {
  return [body = std::move(body), onError = std::move(onError)](const ccs::Request& request) -> ccs::HandlerResult {
    try {
      return body(request);
    } catch (const std::exception& e) {
      return onError(std::string("handler failed: ") + e.what());
    } catch (...) {
      return onError(std::string("handler failed"));
    }
  };
}

}  // namespace mpidbg::rt
