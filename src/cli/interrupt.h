#pragma once
// SIGINT/SIGTERM during a long command: instead of dying with every
// completed execution lost, the command finishes the current execution,
// writes what it has, says so and exits with kExitInterrupted (130, as a
// shell reports a SIGINT death). Installed for the command's lifetime; the
// previous handlers come back after it.

#include <atomic>
#include <csignal>

namespace glassbox::cli {

class InterruptFlag {
 public:
  InterruptFlag() {
    flag().store(false);
    struct sigaction action = {};
    action.sa_handler = [](int) { flag().store(true); };
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~InterruptFlag() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  InterruptFlag(const InterruptFlag&) = delete;
  InterruptFlag& operator=(const InterruptFlag&) = delete;

  /// Set by the handler; read by the runner between executions.
  const std::atomic<bool>* get() const { return &flag(); }

 private:
  // Lock-free, so setting it from a signal handler is safe.
  static std::atomic<bool>& flag() {
    static std::atomic<bool> value{false};
    static_assert(std::atomic<bool>::is_always_lock_free);
    return value;
  }
  struct sigaction previous_int_ = {};
  struct sigaction previous_term_ = {};
};

}  // namespace glassbox::cli
