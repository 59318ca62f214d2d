#pragma once
/// @file
/// The oneDNN backend as a plug-in (backends/common/backend_plugin.h).

#include "backends/common/backend_plugin.h"

namespace glassbox::backends::onednn {

const BackendPlugin& onednn_plugin();

}  // namespace glassbox::backends::onednn
