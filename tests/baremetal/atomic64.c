// The 64-bit atomics a Cortex-M3 lacks. ARMv7-M has 32-bit exclusives
// only, so GCC calls these library functions for std::atomic<uint64_t>
// (the ETDump writer's event counters), and the toolchain ships no
// libatomic. One core: masking interrupts around the access makes it
// atomic. Named through asm labels: GCC refuses definitions of its
// __atomic built-ins under their own names.
#include <stdbool.h>
#include <stdint.h>

static inline uint32_t mask_interrupts(void) {
  uint32_t primask;
  __asm__ volatile("mrs %0, primask\n cpsid i" : "=r"(primask)::"memory");
  return primask;
}

static inline void restore_interrupts(uint32_t primask) {
  __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
}

uint64_t atomic_load_8(const volatile void* p, int order) __asm__("__atomic_load_8");
uint64_t atomic_load_8(const volatile void* p, int order) {
  (void)order;
  const uint32_t m = mask_interrupts();
  const uint64_t v = *(const volatile uint64_t*)p;
  restore_interrupts(m);
  return v;
}

void atomic_store_8(volatile void* p, uint64_t v, int order) __asm__("__atomic_store_8");
void atomic_store_8(volatile void* p, uint64_t v, int order) {
  (void)order;
  const uint32_t m = mask_interrupts();
  *(volatile uint64_t*)p = v;
  restore_interrupts(m);
}

uint64_t atomic_exchange_8(volatile void* p, uint64_t v, int order) __asm__("__atomic_exchange_8");
uint64_t atomic_exchange_8(volatile void* p, uint64_t v, int order) {
  (void)order;
  const uint32_t m = mask_interrupts();
  const uint64_t old = *(volatile uint64_t*)p;
  *(volatile uint64_t*)p = v;
  restore_interrupts(m);
  return old;
}

bool atomic_compare_exchange_8(volatile void* p, void* expected, uint64_t desired, bool weak,
                               int success, int failure) __asm__("__atomic_compare_exchange_8");
bool atomic_compare_exchange_8(volatile void* p, void* expected, uint64_t desired, bool weak,
                               int success, int failure) {
  (void)weak, (void)success, (void)failure;
  const uint32_t m = mask_interrupts();
  const uint64_t current = *(volatile uint64_t*)p;
  const bool equal = current == *(uint64_t*)expected;
  if (equal) {
    *(volatile uint64_t*)p = desired;
  } else {
    *(uint64_t*)expected = current;
  }
  restore_interrupts(m);
  return equal;
}

uint64_t atomic_fetch_add_8(volatile void* p, uint64_t v,
                            int order) __asm__("__atomic_fetch_add_8");
uint64_t atomic_fetch_add_8(volatile void* p, uint64_t v, int order) {
  (void)order;
  const uint32_t m = mask_interrupts();
  const uint64_t old = *(volatile uint64_t*)p;
  *(volatile uint64_t*)p = old + v;
  restore_interrupts(m);
  return old;
}

uint64_t atomic_fetch_sub_8(volatile void* p, uint64_t v,
                            int order) __asm__("__atomic_fetch_sub_8");
uint64_t atomic_fetch_sub_8(volatile void* p, uint64_t v, int order) {
  return atomic_fetch_add_8(p, (uint64_t)0 - v, order);
}
