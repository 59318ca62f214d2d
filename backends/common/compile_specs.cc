#include "backends/common/compile_specs.h"

#include <string>
#include <vector>

#include "glassbox/runtime/delegate_specs.h"

namespace glassbox::backends {

StatusOr<IdentifierMode> parse_aot_compile_specs(std::span<const aot::CompileSpec> specs) {
  std::vector<runtime::CompileSpecView> views;
  views.reserve(specs.size());
  IdentifierMode mode = IdentifierMode::kGenerated;
  for (const aot::CompileSpec& spec : specs) {
    views.push_back({spec.key.c_str(), Span<const std::uint8_t>(spec.value)});
    if (spec.key != kIdentifiersSpecKey) continue;
    const std::string value = spec.value_as_string();
    if (value == "generated") {
      mode = IdentifierMode::kGenerated;
    } else if (value == "int") {
      mode = IdentifierMode::kInt;
    } else if (value == "string") {
      mode = IdentifierMode::kString;
    } else {
      return Status(
          Error::kInvalidArgument,
          "compile spec \"identifiers\" must be \"generated\", \"int\" or \"string\", got \"" +
              value + "\"");
    }
  }
  const Result<runtime::DelegateSpecs> common = runtime::parse_delegate_specs(views);
  if (!common.ok()) return Status(common.error_info());
  return mode;
}

}  // namespace glassbox::backends
