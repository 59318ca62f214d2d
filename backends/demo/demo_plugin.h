#pragma once
/// @file
/// The demo backend as a plug-in (backends/common/backend_plugin.h).

#include "backends/common/backend_plugin.h"

namespace glassbox::backends::demo {

const BackendPlugin& demo_plugin();

}  // namespace glassbox::backends::demo
