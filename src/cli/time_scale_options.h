#pragma once
// `--delegate-time-scale BACKEND=NUM/DEN`, shared by inspect, export and
// report so that its spelling, help and checks are one.

#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "glassbox/core/result.h"
#include "glassbox/inspector/inspector.h"

namespace glassbox::cli {

using DelegateTimeScales = std::map<std::string, TickRatio, std::less<>>;

/// Adds the repeatable option to `command`, filling `texts`.
inline void add_delegate_time_scale_option(CLI::App& command, std::vector<std::string>& texts) {
  command.add_option("--delegate-time-scale", texts,
                     "BACKEND=NUM/DEN: that backend's delegate events count its own ticks, "
                     "NUM/DEN ns each (for ExecuTorch-written dumps; replaces a scale the "
                     "delegate recorded; needs --etrecord); repeatable");
}

/// The scales `texts` give, one per backend; kInvalidArgument for a bad
/// one or a backend named twice.
inline StatusOr<DelegateTimeScales> parse_delegate_time_scales(
    const std::vector<std::string>& texts) {
  DelegateTimeScales scales;
  for (const std::string& text : texts) {
    GLASSBOX_ASSIGN_OR_RETURN(auto scale, inspector::parse_delegate_time_scale(text));
    if (!scales.insert(scale).second) {
      return Status(Error::kInvalidArgument,
                    "--delegate-time-scale names backend '" + scale.first + "' twice");
    }
  }
  return scales;
}

}  // namespace glassbox::cli
