#pragma once
/// @file
/// `Diagnostics`: a fixed-size message buffer that device-side loaders fill
/// with the details of an error (which value, which instruction, which
/// backend) without allocating. The returned `Error` says what kind of
/// failure it was; `Diagnostics::message` says exactly what and where.

#include <cstdarg>
#include <cstddef>
#include <cstdio>

namespace glassbox::runtime {

struct Diagnostics {
  char message[256] = {};
};

/// Formats into `diagnostics` when it is not null. printf-style.
[[gnu::format(printf, 2, 3)]] inline void report(Diagnostics* diagnostics, const char* format,
                                                 ...) {
  if (diagnostics == nullptr) return;
  va_list args;
  va_start(args, format);
  std::vsnprintf(diagnostics->message, sizeof(diagnostics->message), format, args);
  va_end(args);
}

}  // namespace glassbox::runtime
