#include <string>

#include "glassbox/core/error.h"
#include "python/src/bindings.h"

namespace glassbox::python {

void throw_status(const Status& status) {
  // Called with the GIL held: work done without it returns its Status and
  // is checked after. glassbox/errors.py maps the code's name ("CorruptData")
  // to the exception class.
  pybind11::object error_class = pybind11::module_::import("glassbox.errors")
                                     .attr("class_for")(std::string(to_string(status.error())));
  PyErr_SetString(error_class.ptr(), status.message().c_str());
  throw pybind11::error_already_set();
}

}  // namespace glassbox::python
