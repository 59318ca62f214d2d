#pragma once
// A progress line on stderr ("glassbox run: 12/100 executions"), drawn only
// when stderr is a terminal (a log file or a pipe gets no carriage-return
// noise) and cleared before anything else is printed, errors included.

#include <unistd.h>

#include <cstdio>
#include <string>

namespace glassbox::cli {

class ProgressLine {
 public:
  ProgressLine(std::string what, std::string unit)
      : what_(std::move(what)), unit_(std::move(unit)), enabled_(::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() { clear(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(long long done, long long total) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r%s: %lld/%lld %s", what_.c_str(), done, total, unit_.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  /// Erases the line (a no-op when nothing was drawn).
  void clear() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  std::string what_;
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
};

}  // namespace glassbox::cli
