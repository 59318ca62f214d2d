#pragma once
/// @file
/// The compile specs every backend's AOT half reads, parsed in one place.
/// The runtime half's common specs ("profiling", "threads", "perturb") are
/// glassbox/runtime/delegate_specs.h's; the AOT half checks them with that
/// same parser, so a typo fails at export, not on the device.
///
/// "identifiers" picks how a delegate names its debug identifiers:
/// "generated" (the default: DelegateMappingBuilder numbers them), "int"
/// (the backend picks ints) or "string" (the backend picks names); what
/// each backend picks is documented in its header.

#include <span>

#include "glassbox/aot/compile_spec.h"
#include "glassbox/core/status.h"

namespace glassbox::backends {

inline constexpr char kIdentifiersSpecKey[] = "identifiers";

enum class IdentifierMode { kGenerated, kInt, kString };

/// The identifier mode, after checking every common spec (Error::
/// kInvalidArgument naming the spec and what it must be). Keys a backend
/// does not know are left to it.
StatusOr<IdentifierMode> parse_aot_compile_specs(std::span<const aot::CompileSpec> specs);

}  // namespace glassbox::backends
