#pragma once
/// @file
/// `CompileSpec`: one key/value option handed to a backend's `preprocess` and
/// stored on the delegate-call node, as in ExecuTorch. Values are raw bytes
/// because backends define their own encodings; most are short text.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace glassbox::aot {

struct CompileSpec {
  std::string key;
  std::vector<std::uint8_t> value;

  /// A spec whose value is the bytes of `text` (no terminating NUL).
  static CompileSpec from_string(std::string key, std::string_view text) {
    return CompileSpec{std::move(key), std::vector<std::uint8_t>(text.begin(), text.end())};
  }
  /// The value's bytes as a string (no decoding or validation).
  std::string value_as_string() const { return std::string(value.begin(), value.end()); }

  friend bool operator==(const CompileSpec&, const CompileSpec&) = default;
};

}  // namespace glassbox::aot
