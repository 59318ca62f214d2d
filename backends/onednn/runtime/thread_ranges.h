#pragma once
/// @file
/// How Glassbox's own kernels in the oneDNN delegate share work: the OpenMP
/// threads oneDNN runs on, one contiguous range each. Include it only from
/// files built with -fopenmp (CMakeLists.txt); without OpenMP it is one
/// call on the calling thread.

#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace glassbox::backends::onednn {

/// Calls fn(first, end) once per OpenMP thread in force, the ranges
/// splitting [0, count) evenly.
template <class Fn>
void for_each_thread_range(std::int64_t count, Fn&& fn) {
#pragma omp parallel
  {
#ifdef _OPENMP
    const std::int64_t threads = omp_get_num_threads();
    const std::int64_t id = omp_get_thread_num();
#else
    const std::int64_t threads = 1;
    const std::int64_t id = 0;
#endif
    fn(count * id / threads, count * (id + 1) / threads);
  }
}

}  // namespace glassbox::backends::onednn
