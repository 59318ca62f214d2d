#pragma once
// Work on many inputs in parallel, results consumed in input order: `work`
// runs on `jobs` threads, `consume` on the calling thread for index 0, 1,
// 2, ... At most `window` results wait to be consumed, so memory stays
// bounded however many inputs there are, and the outcome does not depend
// on the number of threads.

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "glassbox/core/status.h"

namespace glassbox::cli {

/// The thread count for `--jobs 0` (the default): every core.
inline unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

/// Runs work(i) for i in [0, count) and consume(i, result) in order of i;
/// stops at the first failing consume and returns its status.
/// Fewer threads than `jobs` when the system cannot start that many (a
/// --jobs above the process's thread limit); none at all, and the work
/// runs on the calling thread.
template <typename T>
Status for_each_in_order(std::size_t count, unsigned jobs,
                         const std::function<T(std::size_t)>& work,
                         const std::function<Status(std::size_t, T&&)>& consume) {
  jobs = std::max(1u, jobs);
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::size_t, T> ready;
  std::size_t next_task = 0, next_consume = 0;
  // Results in flight: 0 until the threads are started, then twice their
  // number.
  std::size_t window = 0;
  bool stop = false;

  auto worker = [&] {
    std::unique_lock lock(mutex);
    while (true) {
      changed.wait(lock,
                   [&] { return stop || next_task >= count || next_task < next_consume + window; });
      if (stop || next_task >= count) return;
      const std::size_t i = next_task++;
      lock.unlock();
      T result = work(i);
      lock.lock();
      ready.emplace(i, std::move(result));
      changed.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, count); ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // EAGAIN: the process may start no more threads.
    }
  }
  if (threads.empty()) {
    for (std::size_t i = 0; i < count; ++i) GLASSBOX_RETURN_IF_ERROR(consume(i, work(i)));
    return Status();
  }
  {
    const std::lock_guard lock(mutex);
    window = 2 * threads.size();
  }
  changed.notify_all();

  Status status;
  while (next_consume < count) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return ready.contains(next_consume); });
    T result = std::move(ready.at(next_consume));
    ready.erase(next_consume);
    lock.unlock();
    status = consume(next_consume, std::move(result));
    lock.lock();
    ++next_consume;
    if (!status.ok()) stop = true;
    changed.notify_all();
    if (stop) break;
  }
  for (std::thread& t : threads) t.join();
  return status;
}

}  // namespace glassbox::cli
