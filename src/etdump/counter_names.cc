#include "glassbox/etdump/internal/counter_names.h"

#include "glassbox/etdump/internal/etdump_gen_storage.h"

namespace glassbox::etdump::internal {

std::uint32_t CounterNameTable::find(std::uint32_t name_slot, std::uint32_t n) const {
  for (std::uint32_t i = 0; i < n; ++i) {
    if (slots_[i].load(std::memory_order_relaxed) == name_slot) return i;
  }
  return kFull;
}

std::uint32_t CounterNameTable::index_of(std::uint32_t name_slot) {
  // A delegate names the same few counters on every event: a scan of at
  // most kMaxNames words, no lock.
  if (const std::uint32_t i = find(name_slot, size()); i != kFull) return i;
  std::lock_guard<Mutex> lock(insert_mutex_);
  const std::uint32_t n = size();
  if (const std::uint32_t i = find(name_slot, n); i != kFull) return i;
  if (n == kMaxNames) return kFull;
  // The dump's fixed cost of counters, paid by the first one.
  if (n == 0 && (budget_ == nullptr || !budget_->charge(kOutputBytes))) return kFull;
  slots_[n].store(name_slot, std::memory_order_relaxed);
  count_.store(n + 1, std::memory_order_release);
  return n;
}

}  // namespace glassbox::etdump::internal
