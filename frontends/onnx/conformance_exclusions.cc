#include "frontends/onnx/conformance_exclusions.h"

namespace glassbox::frontends::onnx {
namespace {

// Keep sorted by name; every entry says why, so that a reader can tell a
// design limit from a bug.
constexpr Exclusion kExclusions[] = {
    {"test_averagepool_1d_*", "1-D pooling: the IR's pools are 2-D (NCHW) only"},
    {"test_averagepool_3d_*", "3-D pooling: the IR's pools are 2-D (NCHW) only"},
    {"test_batchnorm_epsilon_training_mode", "training-mode BatchNormalization (running statistics outputs)"},
    {"test_batchnorm_example_training_mode", "training-mode BatchNormalization (running statistics outputs)"},
    {"test_clip*", "Clip bounds given as graph inputs: the clamp kernel takes its bounds as "
                   "attributes, so they must be constants at import (PyTorch exports constants)"},
    {"test_maxpool_1d_*", "1-D pooling: the IR's pools are 2-D (NCHW) only"},
    {"test_maxpool_3d_*", "3-D pooling: the IR's pools are 2-D (NCHW) only"},
    {"test_range_*", "Range on graph inputs: Range is only folded at import (static shapes)"},
};

}  // namespace

std::string_view exclusion_reason(std::string_view case_name) {
  for (const Exclusion& e : kExclusions) {
    if (!e.name.empty() && e.name.back() == '*') {
      if (case_name.starts_with(e.name.substr(0, e.name.size() - 1))) return e.reason;
    } else if (case_name == e.name) {
      return e.reason;
    }
  }
  return {};
}

}  // namespace glassbox::frontends::onnx
