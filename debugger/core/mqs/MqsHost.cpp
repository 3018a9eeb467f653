#include "debugger/core/mqs/MqsHost.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <map>

#include "debugger/core/mqs/MqsCallbacks.hpp"

namespace mpidbg::core::mqs {

namespace {

constexpr std::size_t kMaxLogLines = 200;

template <typename F>
bool bind(void* handle, const char* name, F& out) {
  out = reinterpret_cast<F>(::dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

Expected<std::unique_ptr<MqsHost>> MqsHost::load(const std::string& path) {
  std::unique_ptr<MqsHost> host(new MqsHost());
  host->path_ = path;
  ::dlerror();
  host->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!host->handle_) {
    const char* why = ::dlerror();
    return fail(fmt::format("cannot load mqs DLL {}: {}", path, why ? why : "unknown error"));
  }
  MqsFunctions& fn = host->fn_;
  void* h = host->handle_;
  const struct {
    const char* name;
    bool ok;
  } required[] = {
      {"mqs_setup_basic_callbacks", bind(h, "mqs_setup_basic_callbacks", fn.setupBasicCallbacks)},
      {"mqs_version_string", bind(h, "mqs_version_string", fn.versionString)},
      {"mqs_version_compatibility", bind(h, "mqs_version_compatibility", fn.versionCompatibility)},
      {"mqs_dll_taddr_width", bind(h, "mqs_dll_taddr_width", fn.taddrWidth)},
      {"mqs_dll_error_string", bind(h, "mqs_dll_error_string", fn.errorString)},
      {"mqs_setup_image", bind(h, "mqs_setup_image", fn.setupImage)},
      {"mqs_image_has_queues", bind(h, "mqs_image_has_queues", fn.imageHasQueues)},
      {"mqs_destroy_image_info", bind(h, "mqs_destroy_image_info", fn.destroyImageInfo)},
      {"mqs_setup_process", bind(h, "mqs_setup_process", fn.setupProcess)},
      {"mqs_process_has_queues", bind(h, "mqs_process_has_queues", fn.processHasQueues)},
      {"mqs_destroy_process_info", bind(h, "mqs_destroy_process_info", fn.destroyProcessInfo)},
      {"mqs_update_communicator_list",
       bind(h, "mqs_update_communicator_list", fn.updateCommunicatorList)},
      {"mqs_setup_communicator_iterator",
       bind(h, "mqs_setup_communicator_iterator", fn.setupCommunicatorIterator)},
      {"mqs_get_communicator", bind(h, "mqs_get_communicator", fn.getCommunicator)},
      {"mqs_next_communicator", bind(h, "mqs_next_communicator", fn.nextCommunicator)},
      {"mqs_setup_operation_iterator",
       bind(h, "mqs_setup_operation_iterator", fn.setupOperationIterator)},
      {"mqs_next_operation", bind(h, "mqs_next_operation", fn.nextOperation)},
  };
  for (const auto& r : required) {
    if (!r.ok) return fail(fmt::format("mqs DLL {} lacks the required function {}", path, r.name));
  }
  bind(h, "mqs_get_comm_group", fn.getCommGroup);
  bind(h, "mqs_get_comm_coll_state", fn.getCommCollState);
  bind(h, "mpidbg_mqs_get_call", fn.getCall);
  bind(h, "mpidbg_mqs_last_operation_detail", fn.lastOperationDetail);
  bind(h, "mpidbg_mqs_get_comm_coll_seq", fn.getCommCollSeq);
  bind(h, "mpidbg_mqs_get_comm_uid", fn.getCommUid);
  bind(h, "mpidbg_mqs_setup_coll_history", fn.setupCollHistory);
  bind(h, "mpidbg_mqs_next_coll_record", fn.nextCollRecord);

  if (const int version = fn.versionCompatibility(); version != MQS_INTERFACE_COMPATIBILITY) {
    return fail(fmt::format("mqs DLL {} implements interface version {}; mpidbg speaks {}", path,
                            version, static_cast<int>(MQS_INTERFACE_COMPATIBILITY)));
  }
  if (const int width = fn.taddrWidth(); width != static_cast<int>(sizeof(mqs_taddr_t))) {
    return fail(fmt::format("mqs DLL {} uses {}-byte target addresses; mpidbg uses {}", path, width,
                            sizeof(mqs_taddr_t)));
  }
  {
    DebugLogScope scope(*host);
    fn.setupBasicCallbacks(basicCallbacks());
  }
  return host;
}

Expected<std::shared_ptr<MqsHost>> MqsHost::shared(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<MqsHost>> hosts;
  std::lock_guard lock(mutex);
  if (auto it = hosts.find(path); it != hosts.end()) return it->second;
  auto host = load(path);
  if (!host) return std::unexpected(host.error());
  std::shared_ptr<MqsHost> shared(std::move(*host));
  hosts.emplace(path, shared);
  return shared;
}

MqsHost::~MqsHost() {
  if (handle_) ::dlclose(handle_);
}

std::string MqsHost::fileName() const { return std::filesystem::path(path_).filename().string(); }

std::string MqsHost::version() const {
  const char* text = fn_.versionString();
  return text ? text : "";
}

std::string MqsHost::errorText(int code) const {
  switch (code) {
    case mqs_ok:
      return "no error";
    case mqs_no_information:
      return "no information (mqs code 1)";
    case mqs_end_of_list:
      return "end of list (mqs code 2)";
    default:
      break;
  }
  const char* text = fn_.errorString(code);
  return fmt::format("{} (mqs code {})", text ? text : "unknown error", code);
}

std::vector<std::string> MqsHost::debugLog() const {
  std::lock_guard lock(logMutex_);
  return {log_.begin(), log_.end()};
}

void MqsHost::logDebug(std::string line) {
  std::lock_guard lock(logMutex_);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  log_.push_back(std::move(line));
  if (log_.size() > kMaxLogLines) log_.pop_front();
}

}  // namespace mpidbg::core::mqs
