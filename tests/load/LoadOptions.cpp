// Command line of bin/ccs_load: a table of options, each with its parser.
#include "LoadOptions.hpp"

#include <charconv>
#include <functional>
#include <map>

namespace mpidbg::load {
namespace {

/// Parses a whole decimal number in [min, max] for `option`.
template <typename T>
Expected<T> number(const std::string& option, const std::string& text, T min, T max) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    return fail(option + " takes a number from " + std::to_string(min) + " to " +
                std::to_string(max) + ", not '" + text + "'");
  return value;
}

using Setter = std::function<Expected<void>(LoadOptions&, const std::string& option,
                                            const std::string& value)>;

/// A setter storing a bounded count into `field`.
template <typename T>
Setter count(T LoadOptions::*field, T min, T max) {
  return
      [=](LoadOptions& o, const std::string& option, const std::string& value) -> Expected<void> {
        auto parsed = number<T>(option, value, min, max);
        if (!parsed) return std::unexpected(parsed.error());
        o.*field = *parsed;
        return {};
      };
}

/// A setter storing milliseconds into `field`.
Setter millis(std::chrono::milliseconds LoadOptions::*field) {
  return
      [=](LoadOptions& o, const std::string& option, const std::string& value) -> Expected<void> {
        auto parsed = number<long>(option, value, 1, 3600000);
        if (!parsed) return std::unexpected(parsed.error());
        o.*field = std::chrono::milliseconds(*parsed);
        return {};
      };
}

const std::map<std::string, Setter>& optionTable() {
  constexpr std::size_t kMaxCount = 100000000;
  static const std::map<std::string, Setter> table{
      {"--clients", count<std::size_t>(&LoadOptions::clients, 1, 4096)},
      {"--requests", count<std::size_t>(&LoadOptions::requests, 1, kMaxCount)},
      {"--warmup", count<std::size_t>(&LoadOptions::warmup, 0, kMaxCount)},
      {"--pe", count<std::int32_t>(&LoadOptions::pe, 0, INT32_MAX)},
      {"--stallers", count<std::size_t>(&LoadOptions::stallers, 0, 1024)},
      {"--flooders", count<std::size_t>(&LoadOptions::flooders, 0, 1024)},
      {"--unread", count<std::size_t>(&LoadOptions::unread, 0, 1024)},
      {"--timeout", millis(&LoadOptions::timeout)},
      {"--settle", millis(&LoadOptions::settle)},
      {"--expect",
       [](LoadOptions& o, const std::string&, const std::string& value) -> Expected<void> {
         o.expect = value;
         return {};
       }},
      {"--pid",
       [](LoadOptions& o, const std::string& option, const std::string& value) -> Expected<void> {
         auto parsed = number<pid_t>(option, value, 1, INT32_MAX);
         if (!parsed) return std::unexpected(parsed.error());
         o.pid = *parsed;
         return {};
       }},
  };
  return table;
}

}  // namespace

std::string loadUsage() {
  return "usage: ccs_load HOST:PORT [--clients N (200)] [--requests N (100000)]\n"
         "                [--warmup N (1000)] [--handler NAME (mpidbg/status; repeat to rotate)]\n"
         "                [--pe N (0)] [--expect TEXT] [--pid PID] [--stallers N] [--flooders N]\n"
         "                [--unread N] [--timeout MS (30000)] [--settle MS (20000)]\n";
}

Expected<std::optional<LoadOptions>> parseLoadOptions(std::span<const std::string> args) {
  LoadOptions options;
  bool handlerGiven = false;
  std::optional<std::string> server;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") return std::nullopt;
    if (!arg.starts_with("--")) {
      if (server) return fail("unexpected argument '" + arg + "' (the server is " + *server + ")");
      server = arg;
      continue;
    }
    if (i + 1 == args.size()) return fail(arg + " needs a value");
    const std::string& value = args[++i];
    if (arg == "--handler") {
      if (value.empty() || value.size() > 31)
        return fail("--handler takes a CCS handler name of 1 to 31 characters");
      if (!handlerGiven) options.handlers.clear();
      handlerGiven = true;
      options.handlers.push_back(value);
      continue;
    }
    auto found = optionTable().find(arg);
    if (found == optionTable().end()) return fail("unknown option '" + arg + "'");
    if (auto set = found->second(options, arg, value); !set) return std::unexpected(set.error());
  }
  if (!server) return fail("no server given (HOST:PORT)");
  auto endpoint = ccs::Endpoint::parse(*server);
  if (!endpoint) return fail("bad server '" + *server + "': " + endpoint.error().message);
  options.server = *endpoint;
  return options;
}

}  // namespace mpidbg::load
