#pragma once
/// @file
/// The device layers' lock: `std::mutex` where there are threads, an empty
/// lock where there are none (CMake GLASSBOX_THREADS=OFF, bare metal: a
/// single-threaded libstdc++ has no std::mutex, and one thread needs no
/// lock). Used as std::mutex is, with std::lock_guard / std::unique_lock:
///
///   glassbox::Mutex mutex_;
///   const std::lock_guard<glassbox::Mutex> lock(mutex_);

#include <mutex>

#include "glassbox/config.h"
#include "glassbox/threads_config.h"

namespace glassbox {

#if GLASSBOX_FEATURE(THREADS)
using Mutex = std::mutex;
#else
/// One thread: nothing to exclude. (An interrupt handler that logs events
/// would need a lock that masks interrupts; the device programs log from
/// their main loop only.)
class Mutex {
 public:
  constexpr Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void lock() {}
  bool try_lock() { return true; }
  void unlock() {}
};
#endif

}  // namespace glassbox
