// `print`, `lists` and `where PATH OP VALUE`: application objects read through
// Charm++'s list protocol and merged across ranks (see ObjectQuery.hpp).
#include "debugger/core/ObjectQuery.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>

#include "ccs/proto/ListProtocol.hpp"
#include "ccs/proto/PupFmt.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/Debugger.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;
namespace pupfmt = ccs::pupfmt;

namespace {

bool identStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool identChar(char c) { return identStart(c) || (c >= '0' && c <= '9'); }

/// A non-negative decimal int32 at the front of `text`; advances past it.
std::optional<std::int32_t> readIndex(std::string_view& text) {
  std::int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || value < 0) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

/// True when `path` is `want` or lies under it (`want.x`, `want[3]`).
bool under(std::string_view path, std::string_view want) {
  if (!path.starts_with(want)) return false;
  if (path.size() == want.size()) return true;
  const char next = path[want.size()];
  return next == '.' || next == '[';
}

/// One rank's flattened values of a list read.
struct RankValues {
  std::map<int, std::vector<std::pair<std::string, std::string>>> byRank;
  std::map<int, std::string> failed;
  RankSet running;
  /// The list is an object (no item index in paths) on the ranks that have it.
  bool object = false;
};


/// Decodes a ccs_list_items.fmt reply into its items, or an Error.
Expected<std::vector<pupfmt::Node>> decodeItems(const std::vector<std::uint8_t>& reply) {
  if (reply.empty()) return fail("empty reply (the rank's runtime has no list handlers)");
  return proto::decodeListItems(reply);
}

/// Items [lo, hiPlus1) of `list` from every rank in `ranks` (grouped by range).
std::map<int, Expected<std::vector<pupfmt::Node>>> readItems(ListServers& servers, const std::string& list,
                                                              const std::map<int, std::pair<std::int32_t, std::int32_t>>& ranges) {
  std::map<std::pair<std::int32_t, std::int32_t>, RankSet> groups;
  for (const auto& [rank, range] : ranges) groups[range].insert(rank);
  std::map<int, Expected<std::vector<pupfmt::Node>>> out;
  for (const auto& [range, ranks] : groups) {
    proto::ListItemsRequest request;
    request.lo = range.first;
    request.hiPlus1 = range.second;
    request.path = list;
    for (auto& [rank, reply] : servers.ask(ranks, proto::kListItemsFmtHandler, proto::encodeListItemsRequest(request))) {
      if (!reply) {
        out.emplace(rank, std::unexpected(reply.error()));
        continue;
      }
      auto items = decodeItems(*reply);
      if (items) servers.refine(rank, list, *items);
      out.emplace(rank, std::move(items));
    }
  }
  return out;
}

/// mpidbg/lists of every rank of `ranks`: name -> entry, or why not.
std::map<int, Expected<std::map<std::string, ListEntry>>> readDirectory(ListServers& servers, const RankSet& ranks) {
  // The directory's own length first, so every entry is asked for. queryEach
  // answers for every rank of `ranks`: each ends up in `out` or in `ranges`.
  std::map<int, std::pair<std::int32_t, std::int32_t>> ranges;
  std::map<int, Expected<std::map<std::string, ListEntry>>> out;
  for (auto& [rank, reply] : servers.ask(ranks, proto::kListLenHandler, proto::encodeListLenRequest("mpidbg/lists"))) {
    if (!reply) {
      out.emplace(rank, std::unexpected(reply.error()));
      continue;
    }
    auto length = proto::decodeListLength(*reply);
    if (!length) out.emplace(rank, std::unexpected(length.error()));
    else if (*length < 0) out.emplace(rank, fail("its runtime serves no lists"));
    else ranges[rank] = {0, *length};
  }
  for (auto& [rank, items] : readItems(servers, "mpidbg/lists", ranges)) {
    if (!items) {
      out.emplace(rank, std::unexpected(items.error()));
      continue;
    }
    std::map<std::string, ListEntry> entries;
    for (const auto& item : *items) {
      ListEntry e;
      e.kind = pupfmt::fieldValue(item, "kind");
      std::int32_t length = 0;
      const std::string text = pupfmt::fieldValue(item, "length");
      std::from_chars(text.data(), text.data() + text.size(), length);
      e.length = length;
      entries[pupfmt::fieldValue(item, "name")] = e;
    }
    out.emplace(rank, std::move(entries));
  }
  return out;
}

/// Reads `list` (items of `target`, or all) from `ranks` and flattens every
/// item into (path, value) pairs under the list's name.
RankValues readValues(ListServers& servers, const RankSet& ranks, const ObjectTarget& target) {
  RankValues out;
  out.running = servers.running(ranks);

  std::map<int, std::pair<std::int32_t, std::int32_t>> ranges;
  std::map<int, bool> objectOf;
  for (auto& [rank, directory] : servers.directory(ranks)) {
    if (!directory) {
      out.failed[rank] = directory.error().message;
      continue;
    }
    auto it = directory->find(target.list);
    if (it == directory->end()) {
      out.failed[rank] = "no list named '" + target.list + "' (see 'lists')";
      continue;
    }
    const std::int32_t length = it->second.length;
    const bool object = it->second.kind == "object";
    std::int32_t lo = target.lo.value_or(0);
    std::int32_t hi = target.hiPlus1.value_or(length);
    if (object && target.lo) {
      out.failed[rank] = "'" + target.list + "' is an object, not a list: no [index]";
      continue;
    }
    if (lo >= length && !(length == 0 && !target.lo)) {
      out.failed[rank] = "'" + target.list + "' has " + std::to_string(length) + " item" + (length == 1 ? "" : "s");
      continue;
    }
    hi = static_cast<std::int32_t>(
        std::min<std::int64_t>({hi, length, static_cast<std::int64_t>(lo) + kMaxPrintItems}));
    ranges[rank] = {lo, hi};
    objectOf[rank] = object;
  }
  for (auto& [rank, items] : readItems(servers, target.list, ranges)) {
    if (!items) {
      out.failed[rank] = items.error().message;
      continue;
    }
    const bool object = objectOf[rank];
    out.object = out.object || object;
    const std::int32_t lo = ranges[rank].first;
    std::vector<std::pair<std::string, std::string>> values;
    for (std::size_t i = 0; i < items->size(); ++i) {
      const std::string prefix =
          object ? target.list : target.list + "[" + std::to_string(lo + static_cast<std::int32_t>(i)) + "]";
      for (auto& pair : pupfmt::flatten((*items)[i], prefix)) {
        if (!target.field.empty() && !under(pair.first, prefix + target.field)) continue;
        values.push_back(std::move(pair));
      }
    }
    out.byRank[rank] = std::move(values);
  }
  return out;
}

std::optional<double> numberOf(std::string_view text) {
  if (text == "true") return 1.0;
  if (text == "false") return 0.0;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// `object` with the rank-set fields of every --json result (docs/json-schema.md):
/// "ranks" (RankSet::toString) and "rank_list" (increasing ranks).
nlohmann::json withRanks(nlohmann::json object, const RankSet& set) {
  object["ranks"] = set.toString();
  object["rank_list"] = set.toVector();
  return object;
}

nlohmann::json failedJson(const std::map<int, std::string>& failed) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, RankSet> byWhy;
  for (const auto& [rank, why] : failed) byWhy[why].insert(rank);
  for (const auto& [why, ranks] : byWhy) out.push_back(withRanks({{"error", why}}, ranks));
  return out;
}

std::string renderFailed(const std::map<int, std::string>& failed) {
  std::map<std::string, RankSet> byWhy;
  for (const auto& [rank, why] : failed) byWhy[why].insert(rank);
  std::string out;
  for (const auto& [why, ranks] : byWhy) out += ranks.toString() + " " + why + "\n";
  return out;
}

/// `base[N]` -> (base, N); std::nullopt when `path` does not end in an index.
std::optional<std::pair<std::string_view, std::int64_t>> splitIndex(std::string_view path) {
  if (!path.ends_with(']')) return std::nullopt;
  const std::size_t open = path.rfind('[');
  if (open == std::string_view::npos) return std::nullopt;
  std::int64_t n = 0;
  const char* first = path.data() + open + 1;
  const char* last = path.data() + path.size() - 1;
  auto [end, ec] = std::from_chars(first, last, n);
  if (ec != std::errc() || end != last) return std::nullopt;
  return std::pair{path.substr(0, open), n};
}

}  // namespace

std::vector<MergedField> compressRuns(std::vector<MergedField> fields) {
  std::vector<MergedField> out;
  for (std::size_t i = 0; i < fields.size();) {
    const auto head = splitIndex(fields[i].path);
    std::size_t j = i + 1;
    if (head) {
      while (j < fields.size()) {
        const auto next = splitIndex(fields[j].path);
        if (!next || next->first != head->first || next->second != head->second + static_cast<std::int64_t>(j - i) ||
            fields[j].values != fields[i].values)
          break;
        ++j;
      }
    }
    std::string path = fields[i].path;
    if (j - i > 1)
      path = std::string(head->first) + "[" + std::to_string(head->second) + "-" +
             std::to_string(head->second + static_cast<std::int64_t>(j - i) - 1) + "]";
    MergedField merged = std::move(fields[i]);
    merged.path = std::move(path);
    out.push_back(std::move(merged));
    i = j;
  }
  return out;
}

Expected<ObjectTarget> parseObjectTarget(std::string_view text) {
  const std::string whole(text);
  auto bad = [&](const std::string& why) { return fail("bad object '" + whole + "': " + why); };
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return fail("print needs an object: a watched name (see 'lists'), e.g. 'print grid.nx'");
  ObjectTarget target;
  // NAME: identifiers joined by '/'.
  std::size_t i = 0;
  while (true) {
    if (i >= text.size() || !identStart(text[i])) return bad("a name starts with a letter or '_'");
    while (i < text.size() && identChar(text[i])) ++i;
    if (i < text.size() && text[i] == '/') {
      ++i;
      continue;
    }
    break;
  }
  target.list = std::string(text.substr(0, i));
  text.remove_prefix(i);
  // [i] or [a:b]
  if (!text.empty() && text.front() == '[') {
    text.remove_prefix(1);
    auto lo = readIndex(text);
    if (!lo) return bad("an item index is a number >= 0");
    // [i] means [i:i+1]: the last index is one below the int32 limit.
    if (*lo == std::numeric_limits<std::int32_t>::max()) return bad("an item index is at most 2147483646");
    std::int32_t hi = *lo + 1;
    if (!text.empty() && text.front() == ':') {
      text.remove_prefix(1);
      auto end = readIndex(text);
      if (!end || *end <= *lo) return bad("a range [a:b] needs b > a");
      hi = *end;
    }
    if (text.empty() || text.front() != ']') return bad("'[' without ']'");
    text.remove_prefix(1);
    target.lo = *lo;
    target.hiPlus1 = hi;
    if (hi - *lo > kMaxPrintItems) return bad("at most " + std::to_string(kMaxPrintItems) + " items at once");
  }
  // .field / [k] path
  std::size_t j = 0;
  while (j < text.size()) {
    if (text[j] == '.') {
      ++j;
      if (j >= text.size() || !identStart(text[j])) return bad("a field name follows '.'");
      while (j < text.size() && identChar(text[j])) ++j;
    } else if (text[j] == '[') {
      std::string_view rest = text.substr(j + 1);
      if (!readIndex(rest) || rest.empty() || rest.front() != ']') return bad("an index is [N]");
      j = text.size() - rest.size() + 1;
    } else {
      return bad("unexpected '" + std::string(1, text[j]) + "'");
    }
  }
  target.field = std::string(text);
  return target;
}

std::vector<MergedField> mergeFields(const std::map<int, std::vector<std::pair<std::string, std::string>>>& byRank) {
  std::vector<MergedField> out;
  std::map<std::string, std::size_t> index;
  // value -> (ranks, lowest rank) per field
  std::vector<std::map<std::string, RankSet>> values;
  for (const auto& [rank, pairs] : byRank) {
    for (const auto& [path, value] : pairs) {
      auto [it, fresh] = index.try_emplace(path, out.size());
      if (fresh) {
        out.push_back(MergedField{path, {}});
        values.emplace_back();
      }
      values[it->second][value].insert(rank);
    }
  }
  for (std::size_t f = 0; f < out.size(); ++f) {
    for (auto& [value, ranks] : values[f]) out[f].values.emplace_back(value, std::move(ranks));
    std::stable_sort(out[f].values.begin(), out[f].values.end(), [](const auto& a, const auto& b) {
      if (a.second.size() != b.second.size()) return a.second.size() > b.second.size();
      return *a.second.begin() < *b.second.begin();
    });
  }
  return out;
}

ObjectReport printObject(ListServers& servers, const RankSet& ranks, std::string_view text, const ObjectTarget& target,
                         std::size_t fieldLimit) {
  ObjectReport report;
  report.target = std::string(text);
  RankValues read = readValues(servers, ranks, target);
  report.failed = std::move(read.failed);
  for (const auto& [rank, pairs] : read.byRank) {
    if (pairs.empty() && !target.field.empty()) {
      report.failed[rank] = "no field '" + target.field + "' in '" + target.list + "'";
      continue;
    }
    report.answered.insert(rank);
  }
  for (int r : read.running)
    if (report.answered.contains(r)) report.running.insert(r);
  auto fields = compressRuns(mergeFields(read.byRank));
  if (fields.size() > fieldLimit) {
    report.omitted = fields.size() - fieldLimit;
    fields.resize(fieldLimit);
  }
  report.fields = std::move(fields);
  return report;
}

std::string renderObjectReport(const ObjectReport& report) {
  std::string out;
  for (const auto& field : report.fields) {
    out += field.path + " = ";
    const bool everyone = field.values.size() == 1 && field.values.front().second == report.answered;
    if (everyone) {
      out += field.values.front().first + "\n";
      continue;
    }
    for (std::size_t i = 0; i < field.values.size(); ++i) {
      if (i > 0) out += "; ";
      out += field.values[i].first + " on " + field.values[i].second.toString();
    }
    out += "\n";
  }
  if (report.omitted > 0)
    out += "... " + std::to_string(report.omitted) + " more field" + (report.omitted == 1 ? "" : "s") +
           " (print a field or an item range to see them)\n";
  if (report.fields.empty() && !report.answered.empty())
    out += report.answered.toString() + " '" + report.target + "' is empty\n";
  out += renderFailed(report.failed);
  if (!report.running.empty())
    out += "note: " + report.running.toString() + " read while running application code (best effort; "
           "'freeze' for a consistent view)\n";
  return out;
}

nlohmann::json objectReportToJson(const ObjectReport& report) {
  nlohmann::json fields = nlohmann::json::array();
  for (const auto& field : report.fields) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& [value, ranks] : field.values) values.push_back(withRanks({{"value", value}}, ranks));
    fields.push_back({{"path", field.path}, {"values", values}});
  }
  return {{"target", report.target},
          {"answered", withRanks(nlohmann::json::object(), report.answered)},
          {"fields", fields},
          {"omitted", report.omitted},
          {"failed", failedJson(report.failed)},
          {"running", withRanks(nlohmann::json::object(), report.running)}};
}

ListsReport listLists(ListServers& servers, const RankSet& ranks) {
  ListsReport report;
  std::map<std::string, ListRow> rows;
  std::map<std::string, std::map<std::string, RankSet>> lengths;
  for (auto& [rank, directory] : servers.directory(ranks)) {
    if (!directory) {
      report.failed[rank] = directory.error().message;
      continue;
    }
    for (const auto& [name, entry] : *directory) {
      ListRow& row = rows[name];
      row.name = name;
      row.kind = entry.kind;
      row.ranks.insert(rank);
      lengths[name][std::to_string(entry.length)].insert(rank);
    }
  }
  auto group = [](const std::string& name) {
    return name.starts_with("mpidbg/") ? 2 : name.starts_with("mpi/") || name.starts_with("converse/") ? 1 : 0;
  };
  for (auto& [name, row] : rows) {
    if (row.kind != "object")
      for (auto& [length, ranks] : lengths[name]) row.lengths.emplace_back(length, ranks);
    std::stable_sort(row.lengths.begin(), row.lengths.end(),
                     [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    report.rows.push_back(std::move(row));
  }
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [&](const ListRow& a, const ListRow& b) { return group(a.name) < group(b.name); });
  return report;
}

std::string renderListsReport(const ListsReport& report) {
  std::size_t width = 4;
  for (const auto& row : report.rows) width = std::max(width, row.name.size());
  std::string out;
  for (const auto& row : report.rows) {
    std::string line = row.name + std::string(width - row.name.size() + 2, ' ') + row.kind +
                       std::string(row.kind.size() < 8 ? 8 - row.kind.size() : 1, ' ') + row.ranks.toString();
    if (!row.lengths.empty()) {
      line += "  ";
      if (row.lengths.size() == 1) {
        line += row.lengths.front().first + " item" + (row.lengths.front().first == "1" ? "" : "s");
      } else {
        for (std::size_t i = 0; i < row.lengths.size(); ++i)
          line += (i ? "; " : "") + row.lengths[i].first + " items on " + row.lengths[i].second.toString();
      }
    }
    out += line + "\n";
  }
  if (report.rows.empty() && report.failed.empty()) out += "no lists\n";
  out += renderFailed(report.failed);
  return out;
}

nlohmann::json listsReportToJson(const ListsReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : report.rows) {
    nlohmann::json lengths = nlohmann::json::array();
    for (const auto& [length, ranks] : row.lengths)
      lengths.push_back(withRanks({{"length", std::stoll(length)}}, ranks));
    rows.push_back(withRanks({{"name", row.name}, {"kind", row.kind}, {"lengths", lengths}}, row.ranks));
  }
  return {{"lists", rows}, {"failed", failedJson(report.failed)}};
}

std::vector<std::string> objectCompletions(ListServers& servers, std::string_view word) {
  std::vector<std::string> out;
  // The lowest live rank answers for everyone: completion must be quick.
  const std::optional<int> lowest = servers.firstReachable();
  if (!lowest) return out;
  RankSet one;
  one.insert(*lowest);
  const std::size_t nameEnd = word.find_first_of(".[");
  if (nameEnd == std::string_view::npos) {
    for (auto& [rank, directory] : servers.directory(one))
      if (directory)
        for (const auto& [name, entry] : *directory) out.push_back(name);
    return out;
  }
  auto target = parseObjectTarget(word.substr(0, nameEnd));
  if (!target) return out;
  ObjectTarget all = *target;
  RankValues read = readValues(servers, one, all);
  for (const auto& [rank, pairs] : read.byRank) {
    for (const auto& [path, value] : pairs) {
      if (!path.starts_with(word)) continue;
      // Up to the next separator after what was typed: a field, or an
      // index with its '[' so the next Tab goes on.
      const std::size_t next = path.find_first_of(".[", word.size() + 1);
      out.push_back(next == std::string::npos ? path : path.substr(0, next + (path[next] == '[' ? 1 : 0)));
    }
  }
  return out;
}

bool conditionHolds(std::string_view value, std::string_view op, std::string_view literal) {
  if (literal.size() >= 2 && literal.front() == '"' && literal.back() == '"') literal = literal.substr(1, literal.size() - 2);
  int order = 0;
  const auto a = numberOf(value), b = numberOf(literal);
  if (a && b) order = *a < *b ? -1 : *a > *b ? 1 : 0;
  else order = value < literal ? -1 : value > literal ? 1 : 0;
  if (op == "==") return order == 0;
  if (op == "!=") return order != 0;
  if (op == "<") return order < 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  if (op == ">=") return order >= 0;
  return false;
}

Expected<RankSet> ranksWhere(ListServers& servers, const ObjectCondition& condition) {
  const std::size_t end = condition.path.find_first_of(".[");
  auto target = parseObjectTarget(condition.path.substr(0, end));
  if (!target) return std::unexpected(target.error());
  RankValues read = readValues(servers, RankSet::all(servers.size()), *target);
  RankSet out;
  bool anyField = false;
  for (const auto& [rank, pairs] : read.byRank) {
    for (const auto& [path, value] : pairs) {
      if (path != condition.path) continue;
      anyField = true;
      if (conditionHolds(value, condition.op, condition.value)) out.insert(rank);
    }
  }
  if (read.byRank.empty()) {
    std::string why = read.failed.empty() ? std::string("no rank answered") : read.failed.begin()->second;
    return fail("cannot evaluate 'where " + condition.path + " " + condition.op + " " + condition.value +
                "': " + why);
  }
  if (!anyField)
    return fail("no rank has a field '" + condition.path + "' (print " + target->list + " shows its fields)");
  return out;
}

namespace {

/// The mpidbg ranks of a job: their runtimes serve the list protocol and name
/// their lists in mpidbg/lists.
class RankListServers final : public ListServers {
 public:
  explicit RankListServers(Debugger& debugger) : debugger_(debugger) {}
  std::map<int, Expected<std::vector<std::uint8_t>>> ask(const RankSet& ranks, std::string_view handler,
                                                         const std::vector<std::uint8_t>& data) override {
    return debugger_.queryEach(ranks, handler, data);
  }
  std::map<int, Expected<std::map<std::string, ListEntry>>> directory(const RankSet& ranks) override {
    return readDirectory(*this, ranks);
  }
  RankSet running(const RankSet& ranks) override {
    RankSet out;
    for (const auto& view : debugger_.views(ranks))
      if (view.status && view.status->state == proto::RankState::Running) out.insert(view.info.rank);
    return out;
  }
  std::optional<int> firstReachable() override {
    for (const auto& info : debugger_.session().job().snapshot())
      if (info.reachable()) return info.rank;
    return std::nullopt;
  }
  int size() override { return debugger_.session().job().size(); }

 private:
  Debugger& debugger_;
};

}  // namespace

std::unique_ptr<ListServers> rankListServers(Debugger& debugger) { return std::make_unique<RankListServers>(debugger); }

ObjectReport printObject(Debugger& debugger, const RankSet& ranks, std::string_view text, const ObjectTarget& target,
                         std::size_t fieldLimit) {
  RankListServers servers(debugger);
  return printObject(servers, ranks, text, target, fieldLimit);
}

ListsReport listLists(Debugger& debugger, const RankSet& ranks) {
  RankListServers servers(debugger);
  return listLists(servers, ranks);
}

std::vector<std::string> objectCompletions(Debugger& debugger, std::string_view word) {
  RankListServers servers(debugger);
  return objectCompletions(servers, word);
}

Expected<RankSet> ranksWhere(Debugger& debugger, const ObjectCondition& condition) {
  RankListServers servers(debugger);
  return ranksWhere(servers, condition);
}

}  // namespace mpidbg::core
