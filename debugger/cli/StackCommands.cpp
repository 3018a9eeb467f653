#include "debugger/cli/StackCommands.hpp"

#include <fstream>

#include "debugger/cli/JsonOutput.hpp"
#include "debugger/cli/SetCommands.hpp"
#include "debugger/core/stacks/StackRender.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

namespace {

namespace stacks = core::stacks;

/// The options `where` and `equiv` share, and the rank set left over.
struct StackOptions {
  stacks::NodeKey key = stacks::NodeKey::Function;
  core::StackDepth depth = core::StackDepth::ToMpiCall;
  core::ThreadChoice threads = core::ThreadChoice::Application;
  bool tree = false;
  bool json = false;
  std::string dotFile;
  std::string ranks;
};

Expected<StackOptions> parseOptions(std::string_view args, bool forWhere) {
  StackOptions o;
  for (std::string_view rest = trim(args); !rest.empty();) {
    // One option, or one token of the rank set (splitRankToken's rule).
    const std::string_view word = rest.substr(0, splitRankToken(rest).first.size());
    rest = trim(rest.substr(word.size()));
    if (word == "--full") {
      o.key = stacks::NodeKey::FunctionAndLine;
    } else if (word == "--all-frames") {
      o.depth = core::StackDepth::All;
    } else if (word == "--all-threads") {
      o.threads = core::ThreadChoice::All;
    } else if (forWhere && word == "--tree") {
      o.tree = true;
    } else if (forWhere && word == "--json") {
      o.json = true;
    } else if (forWhere && word == "--dot") {
      const std::size_t sp = rest.find_first_of(" \t");
      o.dotFile = std::string(rest.substr(0, sp));
      if (o.dotFile.empty() || o.dotFile.starts_with("--")) return fail("--dot needs a file name (where --dot tree.dot)");
      rest = sp == std::string_view::npos ? std::string_view{} : trim(rest.substr(sp));
    } else if (word.starts_with("--")) {
      return fail(std::string(forWhere ? "where" : "equiv") + " does not know option '" + std::string(word) +
                  (forWhere ? "' (options: --full --tree --all-frames --all-threads --json --dot FILE)"
                            : "' (options: --full --all-frames --all-threads)"));
    } else {
      // Words that are not options make up the rank set: where blocked & 0-3
      o.ranks += (o.ranks.empty() ? "" : " ") + std::string(word);
    }
  }
  return o;
}

/// Reads the stacks, builds the tree and remembers its classes. `notes` gets
/// the lines about ranks read through gdb, `gdbReads` the same as
/// [{"ranks","rank_list","why"}].
Expected<stacks::StackTree> mergedTree(Context& ctx, const StackOptions& o, std::string& notes,
                                       nlohmann::json& gdbReads) {
  auto ranks = commandRanks(ctx, o.ranks);  // also: no job
  if (!ranks) return std::unexpected(ranks.error());
  const core::StackInput input = ctx.debugger.stacks(*ranks);
  stacks::Symbolizer symbolizer;
  core::HiddenThreads hidden;
  stacks::StackTree tree = core::buildStackTree(input, o.key, o.depth, symbolizer, o.threads, &hidden);
  if (hidden.threads > 0)
    notes += std::to_string(hidden.threads) + " thread" + (hidden.threads == 1 ? "" : "s") + " of " +
             hidden.ranks.toString() + " inside the MPI library or mpidbg's runtime not shown (--all-threads shows them)\n";
  ctx.debugger.equivalenceClasses.clear();
  for (const auto& c : tree.equivalenceClasses()) ctx.debugger.equivalenceClasses.push_back(c.ranks);
  std::map<std::string, core::RankSet> byReason;
  for (const auto& [rank, why] : input.gdbReason) byReason[why].insert(rank);
  gdbReads = nlohmann::json::array();
  for (const auto& [why, set] : byReason) {
    notes += "read through gdb " + set.toString() + ": " + why + "\n";
    gdbReads.push_back(withRanks({{"why", why}}, set));
  }
  return tree;
}

}  // namespace

CommandResult doWhere(Context& ctx, std::string_view args) {
  auto options = parseOptions(args, true);
  if (!options) return CommandResult::failure(options.error().message);
  std::string notes;
  nlohmann::json gdbReads;
  auto tree = mergedTree(ctx, *options, notes, gdbReads);
  if (!tree) return CommandResult::failure(tree.error().message);
  CommandResult result;
  const nlohmann::json treeJson = stacks::stackTreeToJson(*tree);
  result.data = treeJson;
  result.data["read_through_gdb"] = gdbReads;
  result.data["dot_file"] = options->dotFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(options->dotFile);
  if (!options->dotFile.empty()) {
    std::ofstream out(options->dotFile);
    out << stacks::renderDot(*tree);
    out.close();
    if (!out) return CommandResult::failure("cannot write " + options->dotFile);
  }
  if (options->json) {
    result.text = jsonLine(treeJson) + "\n";
    return result;
  }
  result.text = (options->tree ? stacks::renderTree(*tree) : stacks::renderLeaves(*tree)) + notes;
  if (!options->dotFile.empty()) result.text += "Graphviz tree written to " + options->dotFile + "\n";
  return result;
}

CommandResult doEquiv(Context& ctx, std::string_view args) {
  auto options = parseOptions(args, false);
  if (!options) return CommandResult::failure(options.error().message);
  std::string notes;
  nlohmann::json gdbReads;
  auto tree = mergedTree(ctx, *options, notes, gdbReads);
  if (!tree) return CommandResult::failure(tree.error().message);
  CommandResult result;
  result.text = stacks::renderClasses(*tree) + notes;
  nlohmann::json treeJson = stacks::stackTreeToJson(*tree);
  int number = 1;
  for (auto& cls : treeJson["classes"]) cls["number"] = number++;
  result.data = {{"key", treeJson["key"]},
                 {"classes", treeJson["classes"]},
                 {"failures", treeJson["failures"]},
                 {"warnings", treeJson["warnings"]},
                 {"read_through_gdb", gdbReads}};
  if (!ctx.debugger.equivalenceClasses.empty())
    result.text += "Use a class as a rank set with $equiv[N], e.g. gdb $equiv[1] bt\n";
  return result;
}

}  // namespace mpidbg::cli
