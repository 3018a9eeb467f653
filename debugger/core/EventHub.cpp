#include "debugger/core/EventHub.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <span>

#include "ccs/transport/Auth.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/transport/HostAddress.hpp"
#include "ccs/proto/RankProtocol.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

/// One accepted connection: waiting for its registration, then a rank's channel.
struct EventHub::Channel {
  ScopedFd fd;
  std::vector<std::uint8_t> challenge;
  ccs::RequestParser parser{64 * 1024};
  int rank = -1;  ///< set once registered
};

namespace {

/// The registration text with its `mac=` line removed: the MAC's input.
std::string withoutMacLine(std::string_view text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const auto line = text.substr(pos, end - pos);
    if (!line.starts_with("mac=")) out += line;
    pos = end;
  }
  return out;
}

}  // namespace

Expected<HubAddress> resolveHubAddress(const std::string& spec) {
  if (spec.empty() || spec == "loopback") return HubAddress{"127.0.0.1", "127.0.0.1"};
  if (spec == "host" || spec == "any") {
    auto self = ccs::thisHostAddress();
    if (!self) return fail("--listen " + spec + ": " + self.error().message);
    return HubAddress{spec == "any" ? std::string("0.0.0.0") : *self, *self};
  }
  auto address = ccs::ipv4Address(spec);
  if (!address) return fail("--listen: " + address.error().message + " (expected loopback, host, any, an IPv4 address or a host name)");
  if (*address == "0.0.0.0") return resolveHubAddress("any");
  return HubAddress{*address, *address};
}

Expected<std::unique_ptr<EventHub>> EventHub::start(const HubAddress& where,
                                                    std::vector<std::uint8_t> key, Job& job,
                                                    std::function<void(const std::string&)> log) {
  std::unique_ptr<EventHub> hub(new EventHub(job));
  hub->key_ = std::move(key);
  hub->log_ = std::move(log);
  hub->listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!hub->listener_.valid()) return fail(std::string("cannot create socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  in_addr advertised{};
  if (::inet_pton(AF_INET, where.bind.c_str(), &addr.sin_addr) != 1 ||
      ::inet_pton(AF_INET, where.advertise.c_str(), &advertised) != 1)
    return fail("bad listen address '" + where.bind + "' / '" + where.advertise + "' (expected IPv4 addresses)");
  if (::bind(hub->listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(hub->listener_.get(), 512) != 0)
    return fail("cannot listen on " + where.bind + ": " + std::strerror(errno));
  socklen_t len = sizeof addr;
  ::getsockname(hub->listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  hub->endpoint_ = ccs::Endpoint{where.advertise, ntohs(addr.sin_port)};
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0)
    return fail(std::string("cannot create pipe: ") + std::strerror(errno));
  hub->wakeRead_.reset(pipeFds[0]);
  hub->wakeWrite_.reset(pipeFds[1]);
  hub->thread_ = std::thread([h = hub.get()] { h->run(); });
  return hub;
}

EventHub::~EventHub() {
  stop_ = true;
  if (wakeWrite_.valid()) {
    const char c = 'x';
    [[maybe_unused]] auto n = ::write(wakeWrite_.get(), &c, 1);
  }
  if (thread_.joinable()) thread_.join();
}

void EventHub::setLauncher(Launcher* launcher) { launcher_ = launcher; }

void EventHub::run() {
  std::map<int, std::unique_ptr<Channel>> channels;  // by fd
  bool launcherReported = false;

  // Reads what `ch` has (one recv, or with `drain` every byte there without
  // blocking) and acts on its frames; false when the channel must close.
  auto readChannel = [&](Channel& ch, bool drain) -> bool {
    while (true) {
      std::uint8_t buf[4096];
      const ssize_t n = ::recv(ch.fd.get(), buf, sizeof buf, drain ? MSG_DONTWAIT : 0);
      if (n < 0 && drain && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
      if (n <= 0) return false;
      std::span<const std::uint8_t> input(buf, static_cast<std::size_t>(n));
      while (!input.empty()) {
        auto frame = ch.parser.feed(input);
        if (!frame) {
          log_("event channel of " + (ch.rank >= 0 ? "rank " + std::to_string(ch.rank) : "an unregistered peer") +
               ": " + frame.error().message);
          return false;
        }
        if (!*frame) break;
        const std::string text((*frame)->data.begin(), (*frame)->data.end());
        if (ch.rank < 0) {
          if ((*frame)->handler != proto::kRegisterHandler) {
            log_("event channel: expected a registration, got '" + (*frame)->handler + "'");
            return false;
          }
          auto reg = proto::decodeRegistration(text);
          if (!reg) {
            log_("rejected a registration: " + reg.error().message);
            return false;
          }
          std::vector<std::uint8_t> macInput = ch.challenge;
          const std::string body = withoutMacLine(text);
          macInput.insert(macInput.end(), body.begin(), body.end());
          if (!ccs::constantTimeEqual(ccs::hmacSha256Hex(key_, macInput), reg->mac)) {
            log_("rejected a registration claiming rank " + std::to_string(reg->rank) +
                 ": bad MAC (wrong session key?)");
            return false;
          }
          if (auto added = job_.addRank(*reg); !added) {
            log_("rejected a registration: " + added.error().message);
            return false;
          }
          ch.rank = reg->rank;
        } else if ((*frame)->handler == proto::kEventHandler) {
          if (auto event = proto::decodeEvent(text)) job_.applyEvent(ch.rank, *event);
          else log_("rank " + std::to_string(ch.rank) + " sent a bad event: " + event.error().message);
        }
      }
      if (!drain) return true;
    }
  };
  auto closeChannel = [&](int fd) {
    Channel& ch = *channels[fd];
    if (ch.rank >= 0) job_.channelClosed(ch.rank);
    channels.erase(fd);
  };

  while (!stop_) {
    std::vector<pollfd> fds;
    fds.push_back({wakeRead_.get(), POLLIN, 0});
    fds.push_back({listener_.get(), POLLIN, 0});
    for (const auto& [fd, ch] : channels) fds.push_back({fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 100);
    if (stop_) break;

    // The launcher's end is looked at first and reported last: what its
    // ranks sent before they ended (a fatal signal, an exit code) is in the
    // channels by then, and is read and reported before the job's end.
    std::optional<ExitStatus> ended;
    if (Launcher* launcher = launcher_.load(); launcher != nullptr && !launcherReported) ended = launcher->poll();

    if (fds[1].revents & POLLIN) {
      while (true) {
        const int fd = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) break;
        auto ch = std::make_unique<Channel>();
        ch->fd.reset(fd);
        auto challenge = ccs::randomBytes(32);
        if (!challenge) {
          log_("event channel: " + challenge.error().message);
          continue;
        }
        ch->challenge = std::move(*challenge);
        if (::send(fd, ch->challenge.data(), ch->challenge.size(), MSG_NOSIGNAL) !=
            static_cast<ssize_t>(ch->challenge.size()))
          continue;
        channels[fd] = std::move(ch);
      }
    }

    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0 || !channels.count(fds[i].fd)) continue;
      if (!readChannel(*channels[fds[i].fd], false)) closeChannel(fds[i].fd);
    }

    if (ended) {
      std::vector<int> open;
      for (const auto& [fd, ch] : channels) open.push_back(fd);
      for (int fd : open)
        if (!readChannel(*channels[fd], true)) closeChannel(fd);
      job_.launcherEnded(*ended);
      launcherReported = true;
    }
  }
}

}  // namespace mpidbg::core
