#pragma once
// What the binding files share: turning a Status into the glassbox.Error
// subclass its code maps to (glassbox/errors.py owns the hierarchy), and
// one registration function per area.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <utility>

#include "glassbox/core/scalar_type.h"
#include "glassbox/core/status.h"

namespace glassbox::python {

/// Raises the Python exception for `status` (which must not be ok).
[[noreturn]] void throw_status(const Status& status);

inline void check(const Status& status) {
  if (!status.ok()) throw_status(status);
}

template <typename T>
T value_or_throw(StatusOr<T> result) {
  if (!result.ok()) throw_status(result.status());
  return std::move(result).value();
}

/// `work()` with the GIL released (long C++ work: importing, lowering,
/// running); check its result after, with the GIL held again.
template <typename Work>
auto without_gil(Work work) {
  pybind11::gil_scoped_release release;
  return work();
}

/// NumPy's dtype for a tensor of `type` (run-time tensors and logged values).
pybind11::dtype numpy_dtype(ScalarType type);

void register_aot(pybind11::module_& m);
void register_runtime(pybind11::module_& m);
void register_inspector(pybind11::module_& m);

}  // namespace glassbox::python
