// libFuzzer target: Charm++ list requests as a rank's runtime decodes them
// (ccs/proto/ListProtocol.hpp). Any body must decode or give a "bad list request"
// error, never crash or read out of bounds; whatever decodes must re-encode
// to a body that decodes to the same request (the trailing NUL is optional,
// so the bytes themselves may differ by it). Reply decoding must accept only
// 4-byte lengths.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "FuzzCheck.hpp"
#include "ccs/proto/ListProtocol.hpp"

using namespace mpidbg::ccs::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> body(data, data + size);

  if (auto path = decodeListLenRequest(body)) {
    FUZZ_CHECK(path->size() <= kMaxListPath);
    auto again = decodeListLenRequest(encodeListLenRequest(*path));
    FUZZ_CHECK(again.has_value() && *again == *path);
  } else {
    FUZZ_CHECK(path.error().message.starts_with("bad list request: "));
  }

  if (auto request = decodeListItemsRequest(body)) {
    FUZZ_CHECK(request->lo >= 0 && request->hiPlus1 >= request->lo);
    FUZZ_CHECK(request->hiPlus1 - request->lo <= kMaxListItems);
    FUZZ_CHECK(request->extra.size() <= kMaxListExtra && request->path.size() <= kMaxListPath);
    auto again = decodeListItemsRequest(encodeListItemsRequest(*request));
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(again->lo == request->lo && again->hiPlus1 == request->hiPlus1);
    FUZZ_CHECK(again->extra == request->extra && again->path == request->path);
  } else {
    FUZZ_CHECK(request.error().message.starts_with("bad list request: "));
  }

  auto length = decodeListLength(body);
  FUZZ_CHECK(length.has_value() == (size == 4));
  if (auto error = listErrorOf(body)) FUZZ_CHECK(encodeListError(*error) == body);
  return 0;
}
