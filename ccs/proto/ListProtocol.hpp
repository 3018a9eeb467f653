#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/BinaryMessage.hpp"
#include "ccs/proto/PupFmt.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// Charm++'s list protocol (CpdList), as the Charm++ debugger uses it to show
/// parallel objects and queued messages (../shared/protocols/ccs.md,
/// "Handlers the Charm++ debugger uses"; captures 05a-05c). All integers are
/// big-endian int32.
///
///     ccs_list_len        [pathLen][path][NUL]               -> [length]
///     ccs_list_items.fmt  [lo][hi+1][extraLen][extra][pathLen][path][NUL]
///                                                            -> PUP .fmt items
///     ccs_list_items.txt  same request                       -> PUP .txt items, NUL
///
/// The trailing NUL after the path is sent by CharmDebug and not counted in
/// pathLen; it is optional here. Items lo..hi come wrapped as Charm++ wraps
/// them: begin-array sync, comment "CpdList", per item an item sync and the
/// item's fields, end-array sync (runtime/include/mpidbg/pup.hpp).
///
/// Errors (mpidbg's rule; Charm++ answers most of them with an empty reply or
/// aborts): ccs_list_len answers length -1 for an unknown path or a malformed
/// request; ccs_list_items.* answer the ASCII text kListErrorPrefix + reason
/// (never valid .fmt: its first byte would be an unknown field type, and
/// never valid .txt, whose lines start with "sync=", "//" or a type name).
inline constexpr std::string_view kListLenHandler = "ccs_list_len";
inline constexpr std::string_view kListItemsFmtHandler = "ccs_list_items.fmt";
inline constexpr std::string_view kListItemsTxtHandler = "ccs_list_items.txt";
/// The start of an error reply to ccs_list_items.*.
inline constexpr std::string_view kListErrorPrefix = "mpidbg-error: ";
/// Longest list path, in bytes (Charm++'s limit).
inline constexpr std::size_t kMaxListPath = 80;
/// Longest `extra` block accepted, in bytes.
inline constexpr std::size_t kMaxListExtra = 4096;
/// Most items one ccs_list_items request may ask for.
inline constexpr std::int32_t kMaxListItems = 100000;

/// A decoded ccs_list_items request.
struct ListItemsRequest {
  std::int32_t lo = 0;      ///< first item
  std::int32_t hiPlus1 = 0; ///< one past the last item
  std::vector<std::uint8_t> extra;  ///< handler-specific bytes (unused by mpidbg's lists)
  std::string path;

  /// The request in errors.
  static constexpr std::string_view kName = "list request";
  /// [lo][hi+1][extraLen][extra][pathLen][path][NUL]; lo >= 0, lo <= hi+1,
  /// at most kMaxListItems items (checked as soon as read).
  static constexpr auto parts() {
    using T = ListItemsRequest;
    return std::tuple{int32Part("lo", &T::lo).checked(+[](const T& r) -> Expected<void> {
                        if (r.lo < 0) return fail("lo " + std::to_string(r.lo) + " is negative");
                        return {};
                      }),
                      int32Part("hi+1", &T::hiPlus1).checked(+[](const T& r) -> Expected<void> {
                        if (r.hiPlus1 < r.lo)
                          return fail("hi+1 " + std::to_string(r.hiPlus1) + " is below lo " + std::to_string(r.lo));
                        if (r.hiPlus1 - r.lo > kMaxListItems)
                          return fail(std::to_string(r.hiPlus1 - r.lo) + " items asked (at most " +
                                      std::to_string(kMaxListItems) + ")");
                        return {};
                      }),
                      blockPart("extra", &T::extra, kMaxListExtra),
                      textPart("path", &T::path, kMaxListPath)};
  }
};

/// A decoded ccs_list_len request: [pathLen][path][NUL].
struct ListLenRequest {
  std::string path;

  /// The request in errors.
  static constexpr std::string_view kName = "list request";
  /// The path alone.
  static constexpr auto parts() { return std::tuple{textPart("path", &ListLenRequest::path, kMaxListPath)}; }
};

/// The ccs_list_len reply: one big-endian int32, -1 for no such list.
struct ListLength {
  std::int32_t length = -1;

  /// The reply in errors.
  static constexpr std::string_view kName = "ccs_list_len reply";
  /// The length alone.
  static constexpr auto parts() { return std::tuple{int32Part("the length", &ListLength::length)}; }
};

/// A ccs_list_items.* reply as the runtime sends it: the PUP bytes of the
/// items, or an error reply (encodeListError).
struct ListItemsReply {
  std::vector<std::uint8_t> bytes;

  /// The reply in errors.
  static constexpr std::string_view kName = "list reply";
  /// The bytes as they are.
  static constexpr auto parts() { return std::tuple{restPart(&ListItemsReply::bytes)}; }
};

/// The ccs_list_len request body for `path`.
std::vector<std::uint8_t> encodeListLenRequest(std::string_view path);
/// The path of a ccs_list_len request. Errors ("bad list request: ...") for a
/// short body, a negative or oversize path length, a path longer than the
/// body, bytes after the optional NUL, a NUL inside the path.
Expected<std::string> decodeListLenRequest(const std::vector<std::uint8_t>& body);

/// The ccs_list_items.* request body.
std::vector<std::uint8_t> encodeListItemsRequest(const ListItemsRequest& request);
/// Decodes a ccs_list_items.* request; errors as decodeListLenRequest, plus a
/// negative lo, hi+1 < lo, more than kMaxListItems items, an oversize extra.
Expected<ListItemsRequest> decodeListItemsRequest(const std::vector<std::uint8_t>& body);

/// The 4-byte ccs_list_len reply.
std::vector<std::uint8_t> encodeListLength(std::int32_t length);
/// The length of a ccs_list_len reply; -1 means the rank has no such list.
/// Errors for a reply that is not exactly 4 bytes.
Expected<std::int32_t> decodeListLength(const std::vector<std::uint8_t>& reply);

/// An error reply to ccs_list_items.*: kListErrorPrefix + `reason`.
std::vector<std::uint8_t> encodeListError(std::string_view reason);
/// The reason of an error reply, or std::nullopt when `reply` is not one.
std::optional<std::string> listErrorOf(const std::vector<std::uint8_t>& reply);

/// The items of a ccs_list_items.fmt reply: the children of its CpdList
/// (ccs/proto/PupFmt.hpp). Errors: an error reply (its reason), a reply that does
/// not decode ("bad list reply: ...") or is not a CpdList.
Expected<std::vector<pupfmt::Node>> decodeListItems(const std::vector<std::uint8_t>& reply);

}  // namespace mpidbg::ccs::proto
