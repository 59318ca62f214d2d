#include "board_clock.h"

#include <sys/time.h>

#define SYST_CSR (*(volatile uint32_t*)0xE000E010)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018)
#define SYST_RELOAD 0xFFFFFFu

// Wraps of the 24-bit counter, counted by the SysTick interrupt.
static volatile uint32_t wraps;

void SysTick_Handler(void) { wraps = wraps + 1; }

void board_clock_start(void) {
  SYST_RVR = SYST_RELOAD;
  SYST_CVR = 0;
  wraps = 0;
  SYST_CSR = 7;  // enabled, interrupt on wrap, processor clock
}

uint64_t board_clock_ticks(void) {
  // The counter and the wrap count must be of the same period: a wrap
  // between the two reads runs the interrupt before the second read of
  // `wraps` (the main loop never masks interrupts), so read again.
  for (;;) {
    const uint32_t before = wraps;
    const uint32_t down = SYST_CVR;
    if (wraps == before) return (uint64_t)before * (SYST_RELOAD + 1) + (SYST_RELOAD - down);
  }
}

// newlib's gettimeofday (and so std::chrono's clocks, the tracer's clock)
// on the same counter, in microseconds since board_clock_start. The nosys
// stub it replaces fails with ENOSYS, which left every time 0.
int _gettimeofday(struct timeval* tv, void* tz) {
  (void)tz;
  const uint64_t us = board_clock_ticks() / (BOARD_CLOCK_HZ / 1000000u);
  tv->tv_sec = (time_t)(us / 1000000u);
  tv->tv_usec = (suseconds_t)(us % 1000000u);
  return 0;
}
