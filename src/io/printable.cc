#include "glassbox/io/printable.h"

#include <cstdint>
#include <cstdio>

namespace glassbox::io {
namespace {

// The length of the well-formed UTF-8 sequence at `text[i]` (2 to 4), or 0.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (len == 0 || lead > 0xF4 || i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  const auto second = static_cast<unsigned char>(text[i + 1]);
  // Overlong forms, UTF-16 surrogates and code points above U+10FFFF.
  if ((lead == 0xE0 && second < 0xA0) || (lead == 0xED && second >= 0xA0) ||
      (lead == 0xF0 && second < 0x90) || (lead == 0xF4 && second >= 0x90)) {
    return 0;
  }
  return len;
}

// The code point of the well-formed `len`-byte sequence at `text[i]`.
char32_t code_point(std::string_view text, std::size_t i, std::size_t len) {
  static constexpr unsigned char kLeadMask[] = {0, 0, 0x1F, 0x0F, 0x07};
  char32_t cp = static_cast<unsigned char>(text[i]) & kLeadMask[len];
  for (std::size_t k = 1; k < len; ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  }
  return cp;
}

// Bidirectional formatting characters reorder the text around them on
// screen, so a name could show as something it is not.
bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void append_escape(std::string* out, const char* format, unsigned value) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, format, value);
  *out += buffer;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\\': out += "\\\\"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      append_escape(&out, "\\x%02x", c);
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (const std::size_t len = utf8_length(text, i); len == 0) {
      append_escape(&out, "\\x%02x", c);
    } else if (const char32_t cp = code_point(text, i, len);
               (cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp)) {
      // C1 controls (0x9B is a one-byte CSI to some terminals) and bidi.
      append_escape(&out, "\\u%04x", static_cast<unsigned>(cp));
      i += len - 1;
    } else {
      out.append(text.substr(i, len));
      i += len - 1;
    }
  }
  return out;
}

}  // namespace glassbox::io
