#pragma once
/// @file
/// The run options (`glassbox run --threads`, `--delegate-profiling`,
/// `--conv-algorithm`) that override a delegate's compile specs, kept by each backend's runtime
/// half and applied to delegates initialised after they are set. Header-only and device-safe (no
/// allocation, no exceptions).

#include <cstdint>

#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends {

class RunOverrides {
 public:
  /// Forces a profiling mode for delegates initialised from now on, or
  /// clears the override (nullptr; `mode` is copied).
  void set_profiling_mode_override(const runtime::DelegateLogMode* mode) {
    has_mode_ = mode != nullptr;
    if (mode != nullptr) mode_ = *mode;
  }
  /// Forces a thread count (1..kMaxDelegateThreads) for delegates
  /// initialised from now on; 0 clears the override.
  void set_threads_override(std::uint32_t threads) {
    threads_ = threads > runtime::kMaxDelegateThreads ? runtime::kMaxDelegateThreads : threads;
  }
  /// Whether delegates initialised from now on may run Winograd
  /// convolutions (backends without them ignore it).
  void set_winograd(bool allowed) { winograd_ = allowed; }

 protected:
  /// The mode and thread count a delegate with compile specs `specs` runs with.
  runtime::DelegateLogMode log_mode(const runtime::DelegateSpecs& specs) const {
    return has_mode_ ? mode_ : specs.log_mode;
  }
  std::uint32_t threads(const runtime::DelegateSpecs& specs) const {
    return threads_ != 0 ? threads_ : specs.threads;
  }
  bool winograd() const { return winograd_; }

 private:
  bool has_mode_ = false;
  runtime::DelegateLogMode mode_ = runtime::DelegateLogMode::kRealTime;
  std::uint32_t threads_ = 0;
  bool winograd_ = true;
};

}  // namespace glassbox::backends
