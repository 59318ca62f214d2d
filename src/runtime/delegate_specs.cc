#include "glassbox/runtime/delegate_specs.h"

#include <cstring>

namespace glassbox::runtime {
namespace {

bool value_equals(Span<const std::uint8_t> value, const char* text, std::size_t n) {
  return value.size() == n && (n == 0 || std::memcmp(value.data(), text, n) == 0);
}

// A decimal integer of at most 10 digits with an optional '-' (identifiers
// are int32), or false.
bool parse_decimal(Span<const std::uint8_t> value, std::int64_t* out) {
  std::size_t i = 0;
  const bool negative = value.size() > 0 && value[0] == '-';
  if (negative) i = 1;
  if (value.size() == i || value.size() - i > 10) return false;
  std::int64_t v = 0;
  for (; i < value.size(); ++i) {
    if (value[i] < '0' || value[i] > '9') return false;
    v = v * 10 + (value[i] - '0');
  }
  *out = negative ? -v : v;
  return true;
}

}  // namespace

bool compile_spec_value_is(const CompileSpecView& spec, const char* text) {
  return value_equals(spec.value, text, std::strlen(text));
}

bool DelegateSpecs::perturbs(DelegateDebugIntId int_id, const char* name) const {
  if (perturb.size() == 0) return false;
  if (name != nullptr) return value_equals(perturb, name, std::strlen(name));
  std::int64_t id = 0;
  return int_id.is_set() && parse_decimal(perturb, &id) && id == int_id.value;
}

Result<DelegateSpecs> parse_delegate_specs(Span<const CompileSpecView> specs) {
  DelegateSpecs parsed;
  for (const CompileSpecView& spec : specs) {
    if (std::strcmp(spec.key, kProfilingSpecKey) == 0) {
      const std::optional<DelegateLogMode> mode = delegate_log_mode_named(
          std::string_view(reinterpret_cast<const char*>(spec.value.data()), spec.value.size()));
      if (!mode) {
        return make_error(Error::kInvalidArgument,
                          "compile spec 'profiling' must be realtime or posttime");
      }
      parsed.log_mode = *mode;
    } else if (std::strcmp(spec.key, kThreadsSpecKey) == 0) {
      std::int64_t threads = 0;
      if (!parse_decimal(spec.value, &threads) || threads < 1 || threads > kMaxDelegateThreads) {
        return make_error(Error::kInvalidArgument,
                          "compile spec 'threads' must be an integer in [1, 64]");
      }
      parsed.threads = static_cast<std::uint32_t>(threads);
    } else if (std::strcmp(spec.key, kPerturbSpecKey) == 0) {
      if (spec.value.size() == 0) {
        return make_error(Error::kInvalidArgument,
                          "compile spec 'perturb' must name a delegate debug identifier");
      }
      parsed.perturb = spec.value;
    }
  }
  return parsed;
}

}  // namespace glassbox::runtime
