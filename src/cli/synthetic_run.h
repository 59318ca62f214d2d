#pragma once
// A synthetic delegated run recorded through the real hooks and ETDumpGen:
// the stand-in for `glassbox demo` until the runtime executor and the demo
// backend exist (issue 4). It computes real values (a small conv+relu and
// tan as sin/cos/div), so every logged event and tensor is genuine.

#include <cstdint>
#include <string>

#include "glassbox/core/status.h"

namespace glassbox::cli {

struct SyntheticRunOptions {
  int iterations = 3;
  bool use_tsc = false;            // TSC clock instead of steady_clock
  bool log_intermediates = true;   // DebugLevel::kIntermediateOutputs
  bool string_ids = false;         // string delegate identifiers
};

struct SyntheticRunFiles {
  std::string etdump_path;      // <dir>/demo.etdp
  std::string debug_data_path;  // <dir>/demo.bin
  std::uint64_t events = 0;
};

/// Runs the synthetic model and writes an ETDump and its debug data into
/// `out_dir` (created if missing).
StatusOr<SyntheticRunFiles> record_synthetic_run(
    const SyntheticRunOptions& options, const std::string& out_dir);

}  // namespace glassbox::cli
