// CharmJob's construction, the PEs as list servers for `print` and `lists`
// (PeLists, Charm++'s CpdLists one PE at a time), and objects decoded by
// their DWARF types; the helpers CharmJob's files share (CharmJobDetail.hpp).
// Launch, attach and the program's output are in CharmJobLaunch.cpp, PE
// control in CharmJobControl.cpp.
#include "debugger/core/charm/CharmJob.hpp"

#include <charconv>
#include <utility>

#include "mpidbg/SessionKey.hpp"
#include "ccs/proto/ListProtocol.hpp"
#include "ccs/proto/PupFmt.hpp"
#include "debugger/core/charm/CharmJobDetail.hpp"
#include "debugger/core/charm/CharmPes.hpp"
#include "debugger/core/mqs/DwarfValues.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"

namespace mpidbg::core::charm {

namespace pupfmt = ccs::pupfmt;
namespace proto = ccs::proto;

std::string_view peStateName(PeState state) {
  switch (state) {
    case PeState::Running: return "running";
    case PeState::Frozen: return "frozen";
    case PeState::AtBreakpoint: return "at breakpoint";
    case PeState::Aborted: return "aborted";
    case PeState::HeldByGdb: return RankRouter::kHeldByGdb;
    case PeState::Ended: return "ended";
    case PeState::Unknown: return "not answering";
  }
  return "?";
}

namespace detail {

int intOf(const std::string& text, int fallback) {
  int value = fallback;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

Expected<std::vector<pupfmt::Node>> readWholeList(CharmLink& link, int pe, const std::string& list) {
  auto lengthReply = link.call(proto::kListLenHandler, pe, proto::encodeListLenRequest(list));
  if (!lengthReply) return std::unexpected(lengthReply.error());
  auto length = proto::decodeListLength(*lengthReply);
  if (!length) return std::unexpected(length.error());
  proto::ListItemsRequest request;
  request.lo = 0;
  request.hiPlus1 = *length;
  request.path = list;
  auto reply = link.call(proto::kListItemsFmtHandler, pe, proto::encodeListItemsRequest(request));
  if (!reply) return std::unexpected(reply.error());
  auto items = proto::decodeListItems(*reply);
  if (!items) return fail(list + ": " + items.error().message);
  return items;
}

}  // namespace detail

using detail::intOf;
using detail::readWholeList;

/// The PEs as list servers: one request per PE through the link (Charm++
/// aborts on a broadcast list request); the directory is knownLists() with
/// each list's length.
class CharmJob::PeLists final : public ListServers {
 public:
  explicit PeLists(CharmJob& job) : job_(job) {}
  std::map<int, Expected<std::vector<std::uint8_t>>> ask(const RankSet& ranks, std::string_view handler,
                                                         const std::vector<std::uint8_t>& data) override {
    auto [replies, failed] = job_.askPes(job_.sortPes(ranks), handler, data);
    std::map<int, Expected<std::vector<std::uint8_t>>> out;
    for (auto& [pe, reply] : replies) out.emplace(pe, std::move(reply));
    for (auto& [pe, why] : failed) out.emplace(pe, fail(std::move(why)));
    return out;
  }
  std::map<int, Expected<std::map<std::string, ListEntry>>> directory(const RankSet& ranks) override {
    const RankSort sorted = job_.sortPes(ranks);
    std::map<int, Expected<std::map<std::string, ListEntry>>> out;
    for (const auto& [pe, why] : sorted.why) out.emplace(pe, fail(why));
    for (const auto& info : sorted.reachable) {
      const int pe = info.rank;
      std::map<std::string, ListEntry> entries;
      std::optional<Error> error;
      for (const auto& name : knownLists()) {
        auto reply = job_.link_->call(proto::kListLenHandler, pe, proto::encodeListLenRequest(name));
        if (!reply) {
          error = reply.error();
          break;
        }
        auto length = proto::decodeListLength(*reply);
        if (length && *length >= 0) entries[name] = ListEntry{"list", *length};
      }
      // An MPI program's runtime names its own lists (the communicators,
      // pending operations, the program's watched objects) in mpidbg/lists.
      if (!error && job_.servesMpiProgram()) {
        auto served = readWholeList(*job_.link_, pe, "mpidbg/lists");
        if (!served) error = served.error();
        else
          for (const auto& item : *served)
            entries[pupfmt::fieldValue(item, "name")] =
                ListEntry{pupfmt::fieldValue(item, "kind"), intOf(pupfmt::fieldValue(item, "length"), 0)};
      }
      if (error) out.emplace(pe, std::unexpected(*error));
      else out.emplace(pe, std::move(entries));
    }
    return out;
  }
  RankSet running(const RankSet& ranks) override {
    RankSet out;
    for (const auto& view : job_.status(ranks))
      if (view.state == PeState::Running) out.insert(view.pe);
    return out;
  }
  std::optional<int> firstReachable() override {
    const RankSort sorted = job_.sortPes(RankSet::all(job_.size()));
    if (sorted.reachable.empty()) return std::nullopt;
    return sorted.reachable.front().rank;
  }
  int size() override { return job_.size(); }
  void refine(int rank, const std::string& list, std::vector<pupfmt::Node>& items) override {
    (void)rank;  // every PE runs the same program
    if (list == "charm/arrayElements" || list == "charm/object") job_.decodeObjects(items);
  }

 private:
  CharmJob& job_;
};

void CharmJob::decodeObjects(std::vector<pupfmt::Node>& items) {
  // Every PE runs the same program: one symbol table, from the first PE
  // process that can be read.
  std::lock_guard lock(symbolsMutex_);
  if (!symbols_ && !symbolsTried_) {
    symbolsTried_ = true;
    std::vector<pid_t> pids;
    for (const auto& info : session_.job().snapshot())
      if (info.pid > 0 && !info.ended()) pids.push_back(info.pid);
    for (pid_t pid : pids) {
      auto source = mqs::SymbolSource::fromProcess(pid);
      if (source) {
        symbols_ = std::make_unique<mqs::SymbolSource>(std::move(*source));
        break;
      }
    }
  }
  for (auto& item : items) {
    pupfmt::Node* value = nullptr;
    std::string type;
    for (auto& child : item.children) {
      if (child.label == "type") type = child.value;
      if (child.label == "value" && child.kind == pupfmt::Node::Kind::Bytes) value = &child;
    }
    if (value == nullptr || type.empty()) continue;
    if (!symbols_) {
      value->label = "value (raw bytes: the PE processes cannot be read for their DWARF)";
      continue;
    }
    const mqs::TypeRef* ref = symbols_->findType(type);
    if (ref == nullptr) {
      value->label = "value (raw bytes: no DWARF type '" + type + "' in the program)";
      continue;
    }
    auto bytes = fromHex(value->value);
    if (!bytes) continue;
    pupfmt::Node fields;
    fields.label = "fields";
    fields.kind = pupfmt::Node::Kind::Object;
    for (auto& [path, text] : mqs::memberValues(ref->die, *bytes)) {
      pupfmt::Node leaf;
      leaf.label = path;
      leaf.kind = pupfmt::Node::Kind::Scalar;
      leaf.value = std::move(text);
      fields.children.push_back(std::move(leaf));
    }
    *value = std::move(fields);
  }
}

ListServers& CharmJob::lists() { return *lists_; }

const std::vector<std::string>& CharmJob::knownLists() {
  static const std::vector<std::string> lists = {
      "charm/arrayElements", "charm/arrayElementNames", "charm/objectNames", "charm/chares",
      "charm/entries",       "charm/mains",             "charm/messages",   "charm/readonly",
      "charm/readonlyMsg",   "charm/messageStack",      "converse/localqueue"};
  return lists;
}

CharmJob::CharmJob(Session& session, std::function<void(const std::string&)> notify,
                   std::function<void(const std::string&)> output)
    : session_(session), notify_(std::move(notify)), output_(std::move(output)),
      backend_(std::make_unique<CharmPes>(
          session.job(), CharmProgram{[this] { return link_.get(); }, [this] { return pes_; },
                                      [this] { return launcher_ && launcher_->poll(); }})),
      router_(std::make_unique<RankRouter>(*backend_)),
      lists_(std::make_unique<PeLists>(*this)) {}

CharmJob::~CharmJob() {
  kill();
  if (reader_.joinable()) reader_.join();
}

bool CharmJob::isCharmrun(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string& first = argv.front();
  const auto slash = first.rfind('/');
  return (slash == std::string::npos ? first : first.substr(slash + 1)) == "charmrun";
}

std::string CharmJob::serverText() const { return link_ ? link_->server().toString() : std::string("?"); }

}  // namespace mpidbg::core::charm
