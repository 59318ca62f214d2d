// Smoke test of the board support: boots on mps2-an385, reads the cycle
// counters, and writes what it saw to a host file through semihosting.
#include <stdint.h>

#include "semihost.h"

#define DEMCR (*(volatile uint32_t*)0xE000EDFC)
#define DWT_CTRL (*(volatile uint32_t*)0xE0001000)
#define DWT_CYCCNT (*(volatile uint32_t*)0xE0001004)
#define SYST_CSR (*(volatile uint32_t*)0xE000E010)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018)

int main(void) {
  SYST_RVR = 0xFFFFFF;
  SYST_CVR = 0;
  SYST_CSR = 5;  // enabled, processor clock, no interrupt
  uint32_t s0 = SYST_CVR;
  volatile uint32_t sink = 0;
  for (int i = 0; i < 100000; ++i) sink += i;
  uint32_t s1 = SYST_CVR;
  // Formatted by hand: newlib's snprintf would pull in malloc.
  char line[32] = "systick_elapsed=";
  size_t n = 16;
  char digits[10];
  size_t d = 0;
  uint32_t v = (s0 - s1) & 0xFFFFFF;
  do {
    digits[d++] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '\n';
  int h = semihost_open_write("build/baremetal/smoke.txt");
  if (h < 0) return 1;
  if (semihost_write(h, line, n) != 0) return 1;
  semihost_close(h);
  return 0;
}
