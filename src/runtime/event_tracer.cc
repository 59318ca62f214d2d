#include "glassbox/runtime/event_tracer.h"

namespace glassbox::runtime {

// Out of line so the vtable is emitted in one object file.
EventTracer::~EventTracer() = default;

}  // namespace glassbox::runtime
