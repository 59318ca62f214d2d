#include "glassbox/etdump/delegate_output_filter.h"

#include <cstring>

namespace glassbox::etdump {

Error IdentifierFilter::set_int_range(DelegateDebugIntId begin, DelegateDebugIntId end) {
  if (!begin.is_set() || !end.is_set() || begin.value >= end.value) {
    return Error::kInvalidArgument;
  }
  begin_ = begin;
  end_ = end;
  has_range_ = true;
  return Error::kOk;
}

Error IdentifierFilter::add_name_pattern(const char* pattern) {
  if (pattern == nullptr) return Error::kInvalidArgument;
  const std::size_t length = std::strlen(pattern);
  if (length == 0 || length > kMaxPatternLength) return Error::kInvalidArgument;
  if (num_patterns_ == kMaxPatterns) return Error::kOutOfResources;
  std::memcpy(patterns_[num_patterns_], pattern, length + 1);
  ++num_patterns_;
  return Error::kOk;
}

Result<bool> IdentifierFilter::keep(const char* name, DelegateDebugIntId id) {
  if ((name != nullptr) == id.is_set()) {
    return make_error(Error::kInvalidArgument,
                      "a delegate output needs exactly one of a name and an int "
                      "identifier");
  }
  if (name == nullptr) {
    return !has_range_ || (id.value >= begin_.value && id.value < end_.value);
  }
  if (num_patterns_ == 0) return true;
  for (std::size_t i = 0; i < num_patterns_; ++i) {
    if (matches(patterns_[i], name)) return true;
  }
  return false;
}

bool IdentifierFilter::matches(const char* pattern, const char* text) {
  // Greedy match with one backtrack point (the last '*'): linear in
  // practice, and no recursion, so a hostile pattern cannot blow the stack.
  const char* star = nullptr;
  const char* resume = nullptr;
  while (*text != '\0') {
    if (*pattern == '*') {
      star = pattern++;
      resume = text;
    } else if (*pattern == *text) {
      ++pattern;
      ++text;
    } else if (star != nullptr) {
      pattern = star + 1;
      text = ++resume;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == '\0';
}

}  // namespace glassbox::etdump
