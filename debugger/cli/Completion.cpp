#include "debugger/cli/Completion.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "ccs/condition/Condition.hpp"

namespace mpidbg::cli {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

/// The words of `text`, split at blanks; a word that opens '[' runs to its
/// ']' so "[0-3, 7]" stays one word, as splitRankToken reads it.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isBlank(text[i])) ++i;
    if (i == text.size()) break;
    const std::size_t begin = i;
    int depth = 0;
    while (i < text.size() && (depth > 0 || !isBlank(text[i]))) {
      if (text[i] == '[') ++depth;
      else if (text[i] == ']' && depth > 0) --depth;
      ++i;
    }
    out.push_back(text.substr(begin, i - begin));
  }
  return out;
}

std::vector<std::string_view> splitOn(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      if (i > begin) out.push_back(text.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  return out;
}

bool isKeyword(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || c == '-'; }) &&
         s.front() != '-';
}

bool isFileArg(std::string_view placeholder) { return placeholder == "FILE" || placeholder == "PATH"; }

/// One positional slot of a syntax alternative: the items it accepts
/// ("break", "N", "RANKS", ...) and, for the first slot of an optional
/// group ("[NAME = EXPR]"), the slot after the group: leaving the group out
/// goes there (0: the slot cannot be left out).
struct Slot {
  std::vector<std::string_view> items;
  std::size_t skipTo = 0;
};

/// A syntax string read for completion: its options, the options that take
/// a FILE/PATH argument, those that take any argument, and, per alternative
/// ("info break | info entries [RANKS]"), its positional slots.
struct Syntax {
  std::vector<std::string> options;
  std::set<std::string, std::less<>> fileOptions;
  std::set<std::string, std::less<>> valueOptions;
  std::vector<std::vector<Slot>> alternatives;
};

Syntax readSyntax(std::string_view syntax) {
  Syntax out;
  std::size_t begin = 0;
  std::vector<std::string_view> alternatives;
  for (std::size_t bar; (bar = syntax.find(" | ", begin)) != std::string_view::npos; begin = bar + 3)
    alternatives.push_back(syntax.substr(begin, bar - begin));
  alternatives.push_back(syntax.substr(begin));
  for (const auto alternative : alternatives) {
    const auto tokens = splitOn(alternative, ' ');
    std::vector<Slot> slots;
    int depth = 0;
    std::size_t groupStart = SIZE_MAX;  // the first slot of the open outermost group
    // A group that closes (depth back to 0) makes its first slot skippable.
    auto closeGroup = [&] {
      if (depth <= 0) {
        depth = 0;
        if (groupStart < slots.size()) slots[groupStart].skipTo = slots.size();
        groupStart = SIZE_MAX;
      }
    };
    for (std::size_t i = 1; i < tokens.size(); ++i) {  // tokens[0] is the command's name
      std::string_view raw = tokens[i];
      if (depth == 0 && raw.front() == '[') groupStart = slots.size();
      for (char c : raw) depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      std::string_view token = raw;
      while (!token.empty() && token.front() == '[') token.remove_prefix(1);
      while (!token.empty() && token.back() == ']') token.remove_suffix(1);
      if (token.empty()) continue;
      if (token.starts_with("--")) {
        for (const auto option : splitOn(token, '|')) {
          std::string name(option);
          if (std::find(out.options.begin(), out.options.end(), name) == out.options.end())
            out.options.push_back(name);
          // "[--dot FILE]": the option's argument is the next token of its group.
          if (depth > 0 && i + 1 < tokens.size() && !tokens[i + 1].starts_with("[")) {
            std::string_view arg = tokens[i + 1];
            while (!arg.empty() && arg.back() == ']') arg.remove_suffix(1);
            out.valueOptions.insert(name);
            if (isFileArg(arg)) out.fileOptions.insert(name);
          }
        }
        if (out.valueOptions.contains(token) && depth > 0) {  // skip its argument
          ++i;
          for (char c : tokens[i]) depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        }
        closeGroup();
        continue;
      }
      Slot slot;
      slot.items = splitOn(token, '|');
      slots.push_back(std::move(slot));
      closeGroup();
    }
    out.alternatives.push_back(std::move(slots));
  }
  return out;
}

bool looksLikeRanks(std::string_view word, const CompletionContext& ctx) {
  if (word.empty()) return false;
  if (word.front() == '[' || word.front() == '$' || word.front() == '(' || word.front() == '~' ||
      std::isdigit(static_cast<unsigned char>(word.front())) || word == "all")
    return true;
  return std::find(ctx.rankSetWords.begin(), ctx.rankSetWords.end(), word) != ctx.rankSetWords.end() ||
         std::find(ctx.namedSets.begin(), ctx.namedSets.end(), word) != ctx.namedSets.end();
}

bool isRankSetItem(std::string_view item) { return item == "RANKS" || item == "EXPR"; }

/// Punctuation in a syntax ("=" of `set NAME = EXPR`) stands for itself.
bool isPunctuation(std::string_view item) {
  return std::none_of(item.begin(), item.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); });
}

/// Does `word` (typed) fit the slot item `item`?
bool fits(std::string_view item, std::string_view word, const CompletionContext& ctx) {
  if (isKeyword(item) || isPunctuation(item)) return item == word;
  if (isRankSetItem(item)) return looksLikeRanks(word, ctx);
  if (item == "N") return !word.empty() && std::isdigit(static_cast<unsigned char>(word.front()));
  return true;  // any other placeholder takes any word
}

/// The items that may come next after the positional words `typed`, over
/// every alternative of the syntax (optional slots may be skipped).
std::vector<std::string_view> nextItems(const Syntax& syntax, const std::vector<std::string_view>& typed,
                                        const CompletionContext& ctx) {
  std::vector<std::string_view> items;
  for (const auto& slots : syntax.alternatives) {
    std::set<std::size_t> states{0};
    auto close = [&](std::set<std::size_t> s) {
      std::vector<std::size_t> todo(s.begin(), s.end());
      while (!todo.empty()) {
        const std::size_t i = todo.back();
        todo.pop_back();
        if (i < slots.size() && slots[i].skipTo > i && s.insert(slots[i].skipTo).second) todo.push_back(slots[i].skipTo);
      }
      return s;
    };
    states = close(states);
    for (const auto word : typed) {
      std::set<std::size_t> next;
      for (std::size_t i : states)
        if (i < slots.size() &&
            std::any_of(slots[i].items.begin(), slots[i].items.end(), [&](auto item) { return fits(item, word, ctx); }))
          next.insert(i + 1);
      states = close(next);
    }
    for (std::size_t i : states)
      if (i < slots.size()) items.insert(items.end(), slots[i].items.begin(), slots[i].items.end());
  }
  return items;
}

void addRankWords(std::vector<std::string>& out, std::string_view word, const CompletionContext& ctx) {
  out.emplace_back("all");
  out.insert(out.end(), ctx.rankSetWords.begin(), ctx.rankSetWords.end());
  out.insert(out.end(), ctx.namedSets.begin(), ctx.namedSets.end());
  if (ctx.equivalenceClasses == 0) return;
  if (word.starts_with("$equiv[")) {
    for (std::size_t n = 1; n <= ctx.equivalenceClasses; ++n) out.push_back("$equiv[" + std::to_string(n) + "]");
  } else {
    out.emplace_back("$equiv[");
  }
}

void addCommandNames(std::vector<std::string>& out) {
  for (const auto& cmd : commandTable()) {
    out.push_back(cmd.name);
    // Short aliases (c, bt, st, ...) are for typing, not for listing.
    for (const auto& alias : cmd.aliases)
      if (alias.size() > 2) out.push_back(alias);
  }
}

/// `break [RANKS] TARGET ...`: MPI functions and `entry` as the target,
/// entry names after `entry`.
void completeBreak(std::vector<std::string>& out, const std::vector<std::string_view>& typed,
                   std::string_view word, const CompletionContext& ctx) {
  std::size_t target = 0;  // index in typed of the target word
  if (!typed.empty() && looksLikeRanks(typed[0], ctx)) target = 1;
  if (typed.size() == target) {
    if (ctx.charm) out.insert(out.end(), ctx.entryNames.begin(), ctx.entryNames.end());
    else
      for (const auto& f : ccs::cond::functions()) out.emplace_back(f.name);
    out.emplace_back("entry");
    if (target == 0) addRankWords(out, word, ctx);
  } else if (typed.size() == target + 1 && typed[target] == "entry") {
    out.insert(out.end(), ctx.entryNames.begin(), ctx.entryNames.end());
  } else if (typed.size() == target + 1 && !ctx.charm) {
    out.emplace_back("if");  // Charm++'s entry breakpoints take no condition
  }
}

}  // namespace

std::vector<std::string> syntaxOptions(std::string_view syntax) { return readSyntax(syntax).options; }

Completion complete(std::string_view line, std::size_t cursor, const CompletionContext& ctx) {
  Completion result;
  line = line.substr(0, std::min(cursor, line.size()));
  std::size_t start = line.size();
  while (start > 0 && !isBlank(line[start - 1])) --start;
  result.start = start;
  const std::string_view word = line.substr(start);
  const auto before = words(line.substr(0, start));
  std::vector<std::string> found;

  if (before.empty()) {
    addCommandNames(found);
  } else if (const Command* cmd = findCommand(before[0])) {
    Syntax syntax = readSyntax(cmd->syntax);
    // The options and what they take from the command's ArgSpec, not its syntax text.
    syntax.options.clear();
    syntax.fileOptions.clear();
    syntax.valueOptions.clear();
    for (const auto& option : cmd->args.options) {
      syntax.options.push_back(option.name);
      if (option.value != OptionValue::Flag) syntax.valueOptions.insert(option.name);
      if (option.value == OptionValue::File) syntax.fileOptions.insert(option.name);
    }
    // The positional words typed so far: options and their arguments dropped.
    std::vector<std::string_view> typed;
    bool afterFileOption = false, afterValueOption = false;
    for (std::size_t i = 1; i < before.size(); ++i) {
      afterFileOption = afterValueOption = false;
      if (before[i].starts_with("--")) {
        afterFileOption = syntax.fileOptions.contains(before[i]);
        afterValueOption = syntax.valueOptions.contains(before[i]);
        if (afterValueOption && i + 1 < before.size()) {  // its value is typed already
          ++i;
          afterFileOption = afterValueOption = false;
        }
        continue;
      }
      typed.push_back(before[i]);
    }
    if (afterFileOption) {
      if (ctx.paths) found = ctx.paths(word);
    } else if (afterValueOption) {
      // an option's value other than a file: nothing to offer
    } else if (word.starts_with("-") && !syntax.options.empty()) {
      for (const auto& option : syntax.options)
        if (std::find(before.begin(), before.end(), option) == before.end()) found.push_back(option);
    } else if (cmd->name == "break") {
      completeBreak(found, typed, word, ctx);
    } else {
      for (const auto item : nextItems(syntax, typed, ctx)) {
        if (isKeyword(item) || isPunctuation(item)) found.emplace_back(item);
        else if (isRankSetItem(item)) addRankWords(found, word, ctx);
        else if (item == "NAME") found.insert(found.end(), ctx.namedSets.begin(), ctx.namedSets.end());
        else if (item == "N")
          for (int id : ctx.breakpoints) found.push_back(std::to_string(id));
        else if (item == "COMMAND" && cmd->name == "help") addCommandNames(found);
        else if (isFileArg(item) && ctx.paths) {
          auto paths = ctx.paths(word);
          found.insert(found.end(), paths.begin(), paths.end());
        } else if ((item.starts_with("LIST") || item == "FIELD") && ctx.objectWords) {
          auto more = ctx.objectWords(cmd->name, word);
          found.insert(found.end(), more.begin(), more.end());
        }
      }
    }
  }

  std::set<std::string> unique;
  for (auto& candidate : found)
    if (candidate.starts_with(word)) unique.insert(std::move(candidate));
  result.candidates.assign(unique.begin(), unique.end());
  if (result.candidates.size() == 1) {
    const std::string& only = result.candidates.front();
    result.appendSpace = !(only.ends_with('/') || only.ends_with('['));
  }
  return result;
}

std::vector<std::string> filesystemPaths(std::string_view prefix) {
  namespace fs = std::filesystem;
  const std::size_t slash = prefix.rfind('/');
  const std::string typedDir(slash == std::string_view::npos ? std::string_view{} : prefix.substr(0, slash + 1));
  const std::string_view name = slash == std::string_view::npos ? prefix : prefix.substr(slash + 1);
  std::string dir = typedDir.empty() ? std::string(".") : typedDir;
  if (dir.starts_with("~/")) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return {};
    dir = std::string(home) + dir.substr(1);
  }
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string entry = it->path().filename().string();
    if (!entry.starts_with(name)) continue;
    if (entry.starts_with('.') && !name.starts_with('.')) continue;
    std::error_code typeError;
    const bool isDir = fs::is_directory(it->path(), typeError);
    out.push_back(typedDir + entry + (isDir ? "/" : ""));
    if (out.size() >= 1000) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mpidbg::cli
