#pragma once

// The decision log of record and replay (issue 11): per rank, the outcomes
// of message matching an MPI program cannot control, in the order the rank
// saw them. Written by the runtime (runtime/RecordLog.cpp) while recording,
// read by it to replay (runtime/ReplayCursor.cpp) and by the front end for
// `info record` and `mpidbg record dump`. Header-only: the runtime and the
// front end share it without a library between them. Links zlib (crc32).
//
// File format (all integers little-endian; "varint" is unsigned LEB128):
//
//   header   "MPIDBGR1" (8 bytes), rank (u32), size (u32)
//   entries  one byte kind << 4 | low, then the kind's payload:
//     1 RecvMatch  2 ProbeMatch   low bit 2: tag equals the previous match's
//                                 tag; varint source; varint tag unless bit 2
//     3 Iprobe                    low bit 0: flag; bit 1: a match follows
//                                 (as RecvMatch, bit 2 the same-tag bit)
//     4 IrecvMatch                varint zigzag(ordinal - previous ordinal),
//                                 then a match (bit 2 the same-tag bit)
//     5 Test  6 Testall           low bit 0: flag
//     7 Waitany                   low 0: MPI_UNDEFINED, 1..14: index low-1,
//                                 15: varint index
//     8 Testany                   low 0: flag 0; 1: flag 1, MPI_UNDEFINED;
//                                 2..14: index low-2; 15: varint index
//     9 Waitsome 10 Testsome      low 0: outcount MPI_UNDEFINED, 1..14:
//                                 outcount low-1, 15: varint outcount; then
//                                 outcount varint indices
//    15 Repeat                    varint n: the previous decision n more times
//   end      a 0 byte, varint decision count, crc32 (u32, zlib) of every
//            byte before the end byte. A record without it was cut short
//            (the rank died); its decisions up to there are still valid.
//
// A wildcard receive's match (RecvMatch, ProbeMatch, Iprobe, IrecvMatch) is
// recorded only for calls with MPI_ANY_SOURCE or MPI_ANY_TAG; test results
// and completion orders are recorded for every call.

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::record {

/// The first 8 bytes of every decision log.
inline constexpr std::string_view kMagic = "MPIDBGR1";
/// Header bytes: magic, rank, size.
inline constexpr std::size_t kHeaderBytes = 16;

/// What a decision is about (the entry kinds of the file format above).
enum class DecisionKind : std::uint8_t {
  RecvMatch = 1,   ///< a blocking wildcard receive (MPI_Recv, MPI_Sendrecv*) matched source, tag
  ProbeMatch = 2,  ///< a wildcard MPI_Probe matched source, tag
  Iprobe = 3,      ///< MPI_Iprobe's flag (and, for a wildcard with flag 1, source, tag)
  IrecvMatch = 4,  ///< wildcard MPI_Irecv number `index` (0-based, per rank) matched source, tag
  Test = 5,        ///< MPI_Test's flag
  Testall = 6,     ///< MPI_Testall's flag
  Waitany = 7,     ///< the index MPI_Waitany completed (-1: MPI_UNDEFINED)
  Testany = 8,     ///< MPI_Testany's flag and index (-1: MPI_UNDEFINED)
  Waitsome = 9,    ///< the indices MPI_Waitsome completed, in order
  Testsome = 10,   ///< the indices MPI_Testsome completed, in order
};

/// One decision. Fields a kind does not use keep their defaults, so that
/// equal decisions compare equal (the Repeat encoding relies on it).
struct Decision {
  DecisionKind kind = DecisionKind::Test;
  bool flag = false;         ///< Iprobe, Test, Testall, Testany
  bool matched = false;      ///< source/tag are set (matches; Iprobe with flag on a wildcard)
  std::int32_t source = -1;  ///< the matched source (rank in the communicator)
  std::int32_t tag = -1;     ///< the matched tag
  /// Waitany/Testany: the completed index (-1 MPI_UNDEFINED); IrecvMatch:
  /// the receive's ordinal among the rank's wildcard MPI_Irecv calls.
  std::int64_t index = -1;
  /// Waitsome/Testsome: the completed indices; `someUndefined` when the
  /// call returned outcount MPI_UNDEFINED (every request was null).
  std::vector<std::int32_t> indices;
  bool someUndefined = false;

  bool operator==(const Decision&) const = default;
};

/// The MPI function a decision kind belongs to ("MPI_Recv" for RecvMatch,
/// which also covers MPI_Sendrecv and MPI_Sendrecv_replace).
inline std::string_view functionOf(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::RecvMatch: return "MPI_Recv";
    case DecisionKind::ProbeMatch: return "MPI_Probe";
    case DecisionKind::Iprobe: return "MPI_Iprobe";
    case DecisionKind::IrecvMatch: return "MPI_Irecv";
    case DecisionKind::Test: return "MPI_Test";
    case DecisionKind::Testall: return "MPI_Testall";
    case DecisionKind::Waitany: return "MPI_Waitany";
    case DecisionKind::Testany: return "MPI_Testany";
    case DecisionKind::Waitsome: return "MPI_Waitsome";
    case DecisionKind::Testsome: return "MPI_Testsome";
  }
  return "?";
}

/// One line for a decision: "MPI_Recv matched source=2 tag=7",
/// "MPI_Irecv #4 matched source=1 tag=0", "MPI_Testany flag=1 index=2",
/// "MPI_Waitsome indices=[0,3]", "MPI_Waitany index=MPI_UNDEFINED".
inline std::string describe(const Decision& d) {
  std::string s(functionOf(d.kind));
  auto match = [&] { s += " matched source=" + std::to_string(d.source) + " tag=" + std::to_string(d.tag); };
  auto index = [&](std::int64_t i) { s += i < 0 ? std::string("MPI_UNDEFINED") : std::to_string(i); };
  switch (d.kind) {
    case DecisionKind::RecvMatch:
    case DecisionKind::ProbeMatch: match(); break;
    case DecisionKind::IrecvMatch:
      s += " #" + std::to_string(d.index);
      match();
      break;
    case DecisionKind::Iprobe:
      s += d.flag ? " flag=1" : " flag=0";
      if (d.matched) s += " source=" + std::to_string(d.source) + " tag=" + std::to_string(d.tag);
      break;
    case DecisionKind::Test:
    case DecisionKind::Testall: s += d.flag ? " flag=1" : " flag=0"; break;
    case DecisionKind::Waitany:
      s += " index=";
      index(d.index);
      break;
    case DecisionKind::Testany:
      s += d.flag ? " flag=1 index=" : " flag=0 index=";
      index(d.index);
      break;
    case DecisionKind::Waitsome:
    case DecisionKind::Testsome:
      if (d.someUndefined) {
        s += " outcount=MPI_UNDEFINED";
        break;
      }
      s += " indices=[";
      for (std::size_t i = 0; i < d.indices.size(); ++i) s += (i ? "," : "") + std::to_string(d.indices[i]);
      s += "]";
      break;
  }
  return s;
}

namespace detail {

inline void putVarint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void putU32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

inline constexpr unsigned kRepeat = 15;
inline constexpr unsigned kSameTag = 4;

}  // namespace detail

/// Appends decisions to a log in the file format above. Bytes accumulate in
/// pending(); the owner writes them out and calls consumed(), which keeps
/// the checksum. A decision equal to the previous one is held back and
/// counted (Repeat) until a different one comes or finish() is called, so
/// pending() lags by at most one run.
class Encoder {
 public:
  Encoder(std::int32_t rank, std::int32_t size) {
    out_.append(kMagic);
    detail::putU32(out_, static_cast<std::uint32_t>(rank));
    detail::putU32(out_, static_cast<std::uint32_t>(size));
  }

  /// Adds one decision (amortized O(1); allocates only when pending() grows).
  void add(const Decision& d) {
    ++decisions_;
    if (haveLast_ && d == last_) {
      ++repeats_;
      return;
    }
    sealRun();
    encode(d);
    last_ = d;
    haveLast_ = true;
  }

  /// Emits the held-back run count (if any), so that pending() holds every
  /// decision added so far. add() may still follow.
  void sealRun() {
    if (repeats_ == 0) return;
    out_.push_back(static_cast<char>(detail::kRepeat << 4));
    detail::putVarint(out_, repeats_);
    repeats_ = 0;
    haveLast_ = false;  // a Repeat must follow a plain entry
  }

  /// Seals the run and appends the end marker, count and checksum. Nothing
  /// may be added afterwards.
  void finish() {
    sealRun();
    crc_ = ::crc32(crc_, reinterpret_cast<const Bytef*>(out_.data()), static_cast<uInt>(out_.size()));
    crcDone_ = out_.size();
    out_.push_back('\0');
    detail::putVarint(out_, decisions_);
    detail::putU32(out_, static_cast<std::uint32_t>(crc_));
  }

  /// Bytes not yet written out.
  const std::string& pending() const noexcept { return out_; }
  /// The owner wrote pending() out: it is forgotten (the checksum keeps it).
  void consumed() noexcept {
    if (crcDone_ < out_.size())
      crc_ = ::crc32(crc_, reinterpret_cast<const Bytef*>(out_.data() + crcDone_),
                     static_cast<uInt>(out_.size() - crcDone_));
    out_.clear();
    crcDone_ = 0;
  }
  /// Reserves room so that appends up to `bytes` do not allocate.
  void reserve(std::size_t bytes) { out_.reserve(bytes); }
  /// Decisions added so far.
  std::uint64_t decisions() const noexcept { return decisions_; }

 private:
  void match(std::int32_t source, std::int32_t tag, bool sameTag) {
    detail::putVarint(out_, static_cast<std::uint32_t>(source));
    if (!sameTag) detail::putVarint(out_, static_cast<std::uint32_t>(tag));
    lastTag_ = tag;
  }

  void encode(const Decision& d) {
    const auto kind = static_cast<unsigned>(d.kind) << 4;
    const bool sameTag = d.matched && d.tag == lastTag_;
    switch (d.kind) {
      case DecisionKind::RecvMatch:
      case DecisionKind::ProbeMatch:
        out_.push_back(static_cast<char>(kind | (sameTag ? detail::kSameTag : 0)));
        match(d.source, d.tag, sameTag);
        break;
      case DecisionKind::Iprobe:
        out_.push_back(static_cast<char>(kind | (d.flag ? 1 : 0) | (d.matched ? 2 : 0) |
                                         (sameTag ? detail::kSameTag : 0)));
        if (d.matched) match(d.source, d.tag, sameTag);
        break;
      case DecisionKind::IrecvMatch:
        out_.push_back(static_cast<char>(kind | (sameTag ? detail::kSameTag : 0)));
        detail::putVarint(out_, detail::zigzag(d.index - lastOrdinal_));
        lastOrdinal_ = d.index;
        match(d.source, d.tag, sameTag);
        break;
      case DecisionKind::Test:
      case DecisionKind::Testall: out_.push_back(static_cast<char>(kind | (d.flag ? 1 : 0))); break;
      case DecisionKind::Waitany: inlineSmall(kind, d.index < 0 ? 0 : static_cast<std::uint64_t>(d.index) + 1); break;
      case DecisionKind::Testany:
        inlineSmall(kind, !d.flag ? 0 : d.index < 0 ? 1 : static_cast<std::uint64_t>(d.index) + 2);
        break;
      case DecisionKind::Waitsome:
      case DecisionKind::Testsome:
        inlineSmall(kind, d.someUndefined ? 0 : d.indices.size() + 1);
        for (std::int32_t i : d.indices) detail::putVarint(out_, static_cast<std::uint32_t>(i));
        break;
    }
  }

  /// kind | v for v < 15, else kind | 15 and varint(v - 15).
  void inlineSmall(unsigned kind, std::uint64_t v) {
    if (v < 15) {
      out_.push_back(static_cast<char>(kind | v));
      return;
    }
    out_.push_back(static_cast<char>(kind | 15));
    detail::putVarint(out_, v - 15);
  }

  std::string out_;
  std::size_t crcDone_ = 0;
  uLong crc_ = ::crc32(0L, Z_NULL, 0);
  std::uint64_t decisions_ = 0;
  Decision last_;
  bool haveLast_ = false;
  std::uint64_t repeats_ = 0;
  std::int32_t lastTag_ = -1;
  std::int64_t lastOrdinal_ = -1;
};

/// `count` consecutive equal decisions.
struct Run {
  Decision decision;
  std::uint64_t count = 1;
};

/// A decoded log.
struct Log {
  std::int32_t rank = 0;
  std::int32_t size = 0;
  std::vector<Run> runs;       ///< every decision, in order, runs of equal ones joined
  std::uint64_t decisions = 0;  ///< the sum of the runs' counts
  /// The end marker is there and its count and checksum agree; false for a
  /// record cut short (the recorded rank died before writing it).
  bool complete = false;
  std::size_t bytes = 0;  ///< size of the encoded log
};

/// Decodes a log. Errors (with the byte offset): a wrong magic, a truncated
/// header or entry, an unknown kind, a Repeat first, a count beyond what the
/// remaining bytes can hold, bytes after the end marker, and (for a complete
/// record) a decision count or checksum that disagrees: "checksum mismatch
/// (the record was changed after it was written)". Memory stays
/// proportional to the input (runs, not decisions).
inline Expected<Log> decode(std::string_view bytes) {
  Log log;
  log.bytes = bytes.size();
  if (bytes.size() < kHeaderBytes || bytes.substr(0, kMagic.size()) != kMagic)
    return fail("not an mpidbg decision log (no MPIDBGR1 header)");
  auto u32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    return v;
  };
  log.rank = static_cast<std::int32_t>(u32(8));
  log.size = static_cast<std::int32_t>(u32(12));
  std::size_t at = kHeaderBytes;
  std::size_t entryAt = at;
  auto bad = [&](const std::string& what) {
    return fail("decision log byte " + std::to_string(entryAt) + ": " + what);
  };
  bool truncated = false;
  auto varint = [&](std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= bytes.size()) {
        truncated = true;
        return false;
      }
      const auto b = static_cast<unsigned char>(bytes[at++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  };
  std::int32_t lastTag = -1;
  std::int64_t lastOrdinal = -1;
  auto match = [&](Decision& d, bool sameTag) {
    std::uint64_t source = 0, tag = 0;
    if (!varint(source) || source > 0x7fffffff) return false;
    if (!sameTag && (!varint(tag) || tag > 0x7fffffff)) return false;
    d.matched = true;
    d.source = static_cast<std::int32_t>(source);
    d.tag = sameTag ? lastTag : static_cast<std::int32_t>(tag);
    lastTag = d.tag;
    return true;
  };
  auto small = [&](unsigned low, std::uint64_t& v) {
    if (low < 15) {
      v = low;
      return true;
    }
    if (!varint(v) || v > (std::uint64_t{1} << 40)) return false;
    v += 15;
    return true;
  };
  while (at < bytes.size()) {
    entryAt = at;
    const auto head = static_cast<unsigned char>(bytes[at++]);
    const unsigned kind = head >> 4;
    const unsigned low = head & 15;
    if (head == 0) {
      const std::size_t crcEnd = entryAt;
      std::uint64_t count = 0;
      if (!varint(count) || at + 4 != bytes.size())
        return bad(at + 4 > bytes.size() ? "truncated end marker" : "bytes after the end marker");
      const auto crc = ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()),
                               static_cast<uInt>(crcEnd));
      if (static_cast<std::uint32_t>(crc) != u32(at) || count != log.decisions)
        return fail("checksum mismatch (the record was changed after it was written)");
      log.complete = true;
      return log;
    }
    if (kind == detail::kRepeat) {
      std::uint64_t n = 0;
      if (low != 0 || !varint(n)) return truncated ? bad("truncated entry") : bad("malformed repeat");
      if (log.runs.empty() || log.runs.back().count != 1 || n == 0 || n > (std::uint64_t{1} << 48))
        return bad("repeat without a decision before it");
      log.runs.back().count += n;
      log.decisions += n;
      continue;
    }
    Decision d;
    bool ok = true;
    switch (kind) {
      case 1:
      case 2:
        d.kind = static_cast<DecisionKind>(kind);
        ok = (low & ~detail::kSameTag) == 0 && match(d, low & detail::kSameTag);
        break;
      case 3:
        d.kind = DecisionKind::Iprobe;
        d.flag = low & 1;
        ok = (low & 8) == 0 && (!(low & 2) || (d.flag && match(d, low & detail::kSameTag))) &&
             ((low & 2) || !(low & detail::kSameTag));
        break;
      case 4: {
        d.kind = DecisionKind::IrecvMatch;
        std::uint64_t delta = 0;
        ok = (low & ~detail::kSameTag) == 0 && varint(delta);
        if (ok) {
          // Bounded before adding: a hostile delta must not overflow.
          const std::int64_t step = detail::unzigzag(delta);
          ok = step > -(std::int64_t{1} << 48) && step < (std::int64_t{1} << 48);
          const std::int64_t ordinal = ok ? lastOrdinal + step : -1;
          ok = ok && ordinal >= 0 && ordinal < (std::int64_t{1} << 48);
          d.index = lastOrdinal = ordinal;
        }
        ok = ok && match(d, low & detail::kSameTag);
        break;
      }
      case 5:
      case 6:
        d.kind = static_cast<DecisionKind>(kind);
        d.flag = low & 1;
        ok = (low & ~1u) == 0;
        break;
      case 7: {
        d.kind = DecisionKind::Waitany;
        std::uint64_t v = 0;
        ok = small(low, v) && v <= 0x80000000u;
        if (ok) d.index = static_cast<std::int64_t>(v) - 1;  // v may be anything when !ok
        break;
      }
      case 8: {
        d.kind = DecisionKind::Testany;
        std::uint64_t v = 0;
        ok = small(low, v) && v <= 0x80000001u;
        d.flag = v != 0;
        if (ok) d.index = v < 2 ? -1 : static_cast<std::int64_t>(v) - 2;
        break;
      }
      case 9:
      case 10: {
        d.kind = static_cast<DecisionKind>(kind);
        std::uint64_t v = 0;
        ok = small(low, v);
        if (!ok) break;
        d.someUndefined = v == 0;
        const std::uint64_t n = v == 0 ? 0 : v - 1;
        if (n > bytes.size() - at) return bad("outcount " + std::to_string(n) + " beyond the end of the log");
        for (std::uint64_t i = 0; ok && i < n; ++i) {
          std::uint64_t index = 0;
          ok = varint(index) && index <= 0x7fffffff;
          d.indices.push_back(static_cast<std::int32_t>(index));
        }
        break;
      }
      default: return bad("unknown entry kind " + std::to_string(kind));
    }
    if (!ok) return truncated ? bad("truncated entry") : bad("malformed " + std::string(functionOf(d.kind)) + " entry");
    log.runs.push_back(Run{std::move(d), 1});
    ++log.decisions;
  }
  return log;  // cut short: no end marker
}

}  // namespace mpidbg::record
