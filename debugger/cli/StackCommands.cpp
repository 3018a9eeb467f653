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

/// The StackOptions of parsed `where`/`equiv` arguments (their ArgSpec: CommandTable.cpp).
StackOptions stackOptions(const CommandArgs& args) {
  StackOptions o;
  if (args.flag("--full")) o.key = stacks::NodeKey::FunctionAndLine;
  if (args.flag("--all-frames")) o.depth = core::StackDepth::All;
  if (args.flag("--all-threads")) o.threads = core::ThreadChoice::All;
  o.tree = args.flag("--tree");
  o.json = args.flag("--json");
  o.dotFile = args.value<std::string>("--dot").value_or("");
  o.ranks = args.ranks;
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
  ctx.session.equivalenceClasses.clear();
  for (const auto& c : tree.equivalenceClasses()) ctx.session.equivalenceClasses.push_back(c.ranks);
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

CommandResult doWhere(Context& ctx, const CommandArgs& args) {
  const auto options = stackOptions(args);
  std::string notes;
  nlohmann::json gdbReads;
  auto tree = mergedTree(ctx, options, notes, gdbReads);
  if (!tree) return CommandResult::failure(tree.error().message);
  CommandResult result;
  const nlohmann::json treeJson = stacks::stackTreeToJson(*tree);
  result.data = treeJson;
  result.data["read_through_gdb"] = gdbReads;
  result.data["dot_file"] = options.dotFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(options.dotFile);
  if (!options.dotFile.empty()) {
    std::ofstream out(options.dotFile);
    out << stacks::renderDot(*tree);
    out.close();
    if (!out) return CommandResult::failure("cannot write " + options.dotFile);
  }
  if (options.json) {
    result.text = jsonLine(treeJson) + "\n";
    return result;
  }
  result.text = (options.tree ? stacks::renderTree(*tree) : stacks::renderLeaves(*tree)) + notes;
  if (!options.dotFile.empty()) result.text += "Graphviz tree written to " + options.dotFile + "\n";
  return result;
}

CommandResult doEquiv(Context& ctx, const CommandArgs& args) {
  const auto options = stackOptions(args);
  std::string notes;
  nlohmann::json gdbReads;
  auto tree = mergedTree(ctx, options, notes, gdbReads);
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
  if (!ctx.session.equivalenceClasses.empty())
    result.text += "Use a class as a rank set with $equiv[N], e.g. gdb $equiv[1] bt\n";
  return result;
}

}  // namespace mpidbg::cli
