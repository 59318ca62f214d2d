#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime {

// Out of line so the vtable is emitted in one object file.
EventTracer::~EventTracer() = default;

Error EventTracer::set_delegate_time_scale(const char* /*backend*/, TickRatio /*ns_per_tick*/) {
  return Error::kNotSupported;
}

}  // namespace glassbox::runtime
