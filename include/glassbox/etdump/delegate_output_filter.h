#pragma once
/// @file
/// `IdentifierFilter`: a concrete `runtime::DelegateOutputFilter` that limits
/// which delegate intermediate outputs ETDumpGen captures, chosen once at
/// start (`run --capture-ids` / `--capture-names`).
///
///   etdump::IdentifierFilter filter;
///   filter.set_int_range(DelegateDebugIntId(10), DelegateDebugIntId(20));
///   filter.add_name_pattern("*.cos");        // string ids ending in ".cos"
///   gen.set_delegate_output_filter(&filter); // must outlive its use
///
/// Include semantics, each kind of identifier on its own:
/// - an int identifier is kept when it lies in [begin, end); with no range
///   set, every int identifier is kept;
/// - a string identifier is kept when it matches at least one pattern; with
///   no pattern, every string identifier is kept.
/// So an empty filter keeps everything (ExecuTorch's ETDumpFilter drops
/// everything of a kind it has no rule for, and answers "drop?" where the
/// runtime asks "keep?"; neither is reproduced).
///
/// Patterns match the WHOLE identifier; '*' matches any run of characters
/// (including none); every other character matches itself. No regex engine:
/// the matcher is a loop without recursion or allocation, safe on device.
///
/// Device side: no heap; patterns are copied into fixed storage.
/// `keep` may be called from several threads at once; the setters belong to
/// the thread that configures the tracer, before logging starts.

#include <cstddef>
#include <cstdint>

#include "glassbox/core/error.h"
#include "glassbox/core/ids.h"
#include "glassbox/core/result.h"
#include "glassbox/runtime/event_tracer.h"

namespace glassbox::etdump {

class IdentifierFilter final : public runtime::DelegateOutputFilter {
 public:
  /// Patterns a filter holds.
  static constexpr std::size_t kMaxPatterns = 16;
  /// Characters of one pattern, without the terminating NUL.
  static constexpr std::size_t kMaxPatternLength = 63;

  /// Keeps int identifiers in [begin, end) only. Error::kInvalidArgument
  /// (and no change) unless both are set and begin < end.
  Error set_int_range(DelegateDebugIntId begin, DelegateDebugIntId end);
  /// Back to keeping every int identifier.
  void clear_int_range() { has_range_ = false; }
  bool has_int_range() const { return has_range_; }

  /// Adds a pattern for string identifiers; `pattern` is copied.
  /// Error::kInvalidArgument for a null or empty pattern or one longer than
  /// kMaxPatternLength; Error::kOutOfResources when kMaxPatterns are held.
  Error add_name_pattern(const char* pattern);
  /// Back to keeping every string identifier.
  void clear_name_patterns() { num_patterns_ = 0; }
  std::size_t num_name_patterns() const { return num_patterns_; }

  /// True to log. Exactly one of `name` (non-null) and `id` (set) must be
  /// given, else Error::kInvalidArgument.
  Result<bool> keep(const char* name, DelegateDebugIntId id) override;

  /// Whole-string match of `text` against `pattern` ('*' = any run).
  /// Both must be non-null and NUL-terminated.
  static bool matches(const char* pattern, const char* text);

 private:
  bool has_range_ = false;
  DelegateDebugIntId begin_;
  DelegateDebugIntId end_;
  std::size_t num_patterns_ = 0;
  char patterns_[kMaxPatterns][kMaxPatternLength + 1] = {};
};

}  // namespace glassbox::etdump
