// _glassbox: the C++ core's entry points for the glassbox package. Each
// area registers itself (aot.cc, runtime.cc, inspector.cc); the Python
// layer (glassbox/) gives them ExecuTorch's names.

#include "python/src/bindings.h"

PYBIND11_MODULE(_glassbox, m) {
  m.doc() = "Glassbox's C++ core; use the glassbox package, not this module";
  glassbox::python::register_aot(m);
  glassbox::python::register_runtime(m);
  glassbox::python::register_inspector(m);
}
