// _glassbox: the C++ core's entry points for the glassbox package. Each
// area registers itself (aot.cc, runtime.cc, inspector.cc); the Python
// layer (glassbox/) gives them ExecuTorch's names.

#include <string>

#include "glassbox/io/output_files.h"
#include "python/src/bindings.h"

PYBIND11_MODULE(_glassbox, m) {
  m.doc() = "Glassbox's C++ core; use the glassbox package, not this module";
  glassbox::python::register_aot(m);
  glassbox::python::register_runtime(m);
  glassbox::python::register_inspector(m);
  // The same atomic write as the command line's outputs (a temporary file
  // beside the destination, renamed on success), for every file Python saves.
  m.def(
      "write_file_atomically",
      [](const std::string& path, const std::string& data) {
        glassbox::python::check(glassbox::io::write_file_atomically(path, data));
      },
      pybind11::arg("path"), pybind11::arg("data"));
}
