// Deferred replies: Responder (any thread) and the mailbox that wakes the
// server's poll loop.
#include <sys/eventfd.h>

#include <cerrno>

#include "ccs/transport/ServerConnection.hpp"
#include "ccs/transport/Socket.hpp"

namespace mpidbg::ccs {

namespace detail {

Expected<std::shared_ptr<ReplyMailbox>> ReplyMailbox::create() {
  ScopedFd fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!fd.valid()) return fail("cannot create the reply wake-up eventfd: " + errnoText(errno));
  return std::shared_ptr<ReplyMailbox>(new ReplyMailbox(std::move(fd)));
}

void ReplyMailbox::post() {
  // On the poll thread during a round the answer is collected before the
  // round ends; no wake-up needed.
  if (pollThread_.load() == std::this_thread::get_id()) return;
  if (signalled_.exchange(true)) return;
  std::uint64_t one = 1;
  ssize_t rc;
  do {
    rc = ::write(fd_.get(), &one, sizeof one);
  } while (rc < 0 && errno == EINTR);
  // EAGAIN only when the counter is near overflow: the loop is woken anyway.
}

void ReplyMailbox::clear() {
  // Order matters: clear the flag first, then drain, so that a post racing
  // with this either writes again or is collected by the caller.
  signalled_.store(false);
  std::uint64_t count;
  while (::read(fd_.get(), &count, sizeof count) < 0 && errno == EINTR) {
  }
}

}  // namespace detail

Responder::Responder() = default;

Responder::Responder(std::shared_ptr<State> state) : state_(std::move(state)) {}

Responder::Responder(Responder&&) noexcept = default;

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    if (pending()) reply({});
    state_ = std::move(other.state_);
  }
  return *this;
}

Responder::~Responder() {
  if (pending()) reply({});
}

namespace {

/// Stores the answer once and wakes the server (if it still exists).
void answer(Responder::State& state, std::optional<std::vector<std::uint8_t>> reply) {
  std::function<void(std::optional<std::vector<std::uint8_t>>)> callback;
  {
    std::lock_guard lock(state.mutex);
    if (state.answered) return;
    state.answered = true;
    if (state.callback)
      callback = std::move(state.callback);
    else
      state.reply = std::move(reply);
  }
  if (callback) {
    callback(std::move(reply));
    return;
  }
  if (auto mailbox = state.mailbox.lock()) mailbox->post();
}

}  // namespace

void Responder::reply(std::vector<std::uint8_t> data) {
  if (state_) answer(*state_, std::move(data));
}

Responder Responder::toCallback(
    std::function<void(std::optional<std::vector<std::uint8_t>>)> onAnswer) {
  auto state = std::make_shared<State>();
  state->callback = std::move(onAnswer);
  return Responder(std::move(state));
}

void Responder::noReply() {
  if (state_) answer(*state_, std::nullopt);
}

bool Responder::pending() const {
  if (!state_) return false;
  std::lock_guard lock(state_->mutex);
  return !state_->answered;
}

}  // namespace mpidbg::ccs
