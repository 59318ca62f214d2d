#pragma once
/// @file
/// The XNNPACK backend as a plug-in (backends/common/backend_plugin.h).

#include "backends/common/backend_plugin.h"

namespace glassbox::backends::xnnpack {

const BackendPlugin& xnnpack_plugin();

}  // namespace glassbox::backends::xnnpack
