#include "EventChannel.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "Control.hpp"
#include "FatalSignal.hpp"
#include "ccs/transport/Frame.hpp"

namespace mpidbg::rt {

namespace {

/// State the signal handlers may touch: lock-free atomics and static arrays
/// filled before the handlers are installed (async-signal-safe, no malloc).
std::atomic<int> gEventFd{-1};
std::atomic<bool> gLost{false};
EventChannel* gChannel = nullptr;
std::int32_t gEventRank = 0;
/// The process that armed the hooks: a fork()ed child inherits the socket and
/// the hooks but is not the rank, so it reports nothing.
pid_t gOwner = 0;

/// One pre-built Signal event frame.
struct SignalFrame {
  int signal = 0;
  std::array<std::uint8_t, 256> bytes{};
  std::size_t length = 0;
  struct sigaction previous {};
};
std::array<SignalFrame, kFatalSignals.size()> gSignalFrames{};
/// Alternate stack for the main thread, so a stack overflow can still report.
alignas(16) std::array<char, 64 * 1024> gAltStack{};

Expected<std::vector<std::uint8_t>> eventFrame(std::int32_t rank, const ccs::proto::Event& event) {
  const std::string text = ccs::proto::encode(event);
  ccs::Request request;
  request.pe = rank;
  request.handler = std::string(ccs::proto::kEventHandler);
  request.data.assign(text.begin(), text.end());
  return ccs::encodeRequest(request);
}

/// Reports the signal (one send, never blocking), then hands it on to the
/// previous disposition with its siginfo (FatalSignal.hpp).
void onFatalSignal(int sig, siginfo_t* info, void*) {
  const int savedErrno = errno;
  for (SignalFrame& f : gSignalFrames) {
    if (f.signal != sig) continue;
    const int fd = gEventFd.load(std::memory_order_relaxed);
    if (fd >= 0 && !gLost.load(std::memory_order_relaxed) && f.length > 0 && ::getpid() == gOwner)
      (void)::send(fd, f.bytes.data(), f.length, MSG_NOSIGNAL | MSG_DONTWAIT);
    errno = savedErrno;
    passOnFatalSignal(sig, info, f.previous);
    return;
  }
  errno = savedErrno;
}

void onProcessExit(int status, void*) {
  if (!gChannel || ::getpid() != gOwner) return;
  ccs::proto::Event event;
  event.kind = ccs::proto::Event::Kind::Exited;
  event.code = status;
  gChannel->send(gEventRank, event);
}

std::string errnoText(int err) { return std::strerror(err); }

}  // namespace

Expected<void> EventChannel::connect(const ccs::Endpoint& frontend, std::chrono::milliseconds timeout) {
  const std::string where = "front end at " + frontend.toString();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(frontend.port);
  if (int rc = ::getaddrinfo(frontend.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return fail("cannot resolve " + where + ": " + ::gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);

  std::string lastError = "no address";
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    ScopedFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol));
    if (!fd.valid()) {
      lastError = errnoText(errno);
      continue;
    }
    int err = 0;
    if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        lastError = errnoText(errno);
        continue;
      }
      pollfd p{fd.get(), POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
      if (ready <= 0) {
        lastError = ready == 0 ? "timed out" : errnoText(errno);
        continue;
      }
      socklen_t len = sizeof err;
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        lastError = errnoText(err);
        continue;
      }
    }
    // Back to blocking: event writes are small whole frames.
    const int flags = ::fcntl(fd.get(), F_GETFL);
    ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    if (fd_.valid()) {
      // A new front end: same descriptor number, new connection (dup3
      // closes the old one), so a signal handler never sees a stale number.
      std::lock_guard lock(sendMutex_);
      if (::dup3(fd.get(), fd_.get(), O_CLOEXEC) < 0) {
        lastError = "dup3: " + errnoText(errno);
        continue;
      }
      return {};
    }
    fd_ = std::move(fd);
    gEventFd.store(fd_.get(), std::memory_order_release);
    return {};
  }
  return fail("cannot connect to " + where + ": " + lastError);
}

Expected<std::vector<std::uint8_t>> EventChannel::receive(std::size_t n, std::chrono::milliseconds timeout) {
  std::vector<std::uint8_t> out(n);
  std::size_t have = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (have < n) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return fail("front end sent no challenge within " + std::to_string(timeout.count()) + " ms");
    pollfd p{fd_.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t got = ::recv(fd_.get(), out.data() + have, n - have, MSG_DONTWAIT);
    if (got == 0) return fail("front end closed the connection before sending its challenge");
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return fail("cannot read the front end's challenge: " + errnoText(errno));
    }
    have += static_cast<std::size_t>(got);
  }
  return out;
}

Expected<void> EventChannel::sendAll(std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t sent = ::send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      return fail("cannot send to the front end: " + errnoText(errno));
    }
    done += static_cast<std::size_t>(sent);
  }
  return {};
}

void EventChannel::send(std::int32_t rank, const ccs::proto::Event& event) noexcept {
  if (lost() || !fd_.valid()) return;
  try {
    SignalBlock block(Control::instance().freezeSignal());
    std::lock_guard lock(sendMutex_);
    auto frame = eventFrame(rank, event);
    if (!frame || !sendAll(*frame)) markLost();
  } catch (...) {
    markLost();
  }
}

Expected<void> EventChannel::armProcessHooks(std::int32_t rank) {
  gChannel = this;
  gEventRank = rank;
  gOwner = ::getpid();
  for (std::size_t i = 0; i < kFatalSignals.size(); ++i) {
    ccs::proto::Event event;
    event.kind = ccs::proto::Event::Kind::Signal;
    event.signal = kFatalSignals[i];
    auto frame = eventFrame(rank, event);
    if (!frame) return fail("cannot build the signal event frame: " + frame.error().message);
    SignalFrame& f = gSignalFrames[i];
    if (frame->size() > f.bytes.size()) return fail("signal event frame too long");
    std::memcpy(f.bytes.data(), frame->data(), frame->size());
    f.length = frame->size();
    f.signal = kFatalSignals[i];
  }

  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    stack_t alt{};
    alt.ss_sp = gAltStack.data();
    alt.ss_size = gAltStack.size();
    ::sigaltstack(&alt, nullptr);
  }
  for (SignalFrame& f : gSignalFrames) {
    struct sigaction action {};
    action.sa_sigaction = &onFatalSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK | SA_SIGINFO;
    if (::sigaction(f.signal, &action, &f.previous) != 0)
      return fail(std::string("cannot install a handler for signal ") + std::to_string(f.signal) + ": " +
                  errnoText(errno));
  }
  if (::on_exit(&onProcessExit, nullptr) != 0) return fail("cannot register the exit hook");
  return {};
}

void EventChannel::markLost() noexcept { gLost.store(true, std::memory_order_release); }

bool EventChannel::lost() const noexcept { return gLost.load(std::memory_order_acquire); }

void EventChannel::revive() noexcept { gLost.store(false, std::memory_order_release); }

}  // namespace mpidbg::rt
