// The mps2-an385 board's clock: SysTick, the one counter qemu-system-arm
// really counts on this board (DWT CYCCNT reads 0 there; docs/device.md).
// Its 24-bit down-counter wraps every 0.67 s at the 25 MHz system clock;
// the SysTick interrupt counts the wraps, extending it to 64 bits.
#ifndef GLASSBOX_TESTS_BAREMETAL_BOARD_CLOCK_H_
#define GLASSBOX_TESTS_BAREMETAL_BOARD_CLOCK_H_
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
// The rate qemu derives SysTick from: the board's 25 MHz system clock,
// 40 ns a tick (assumed: nothing on the board reports it).
#define BOARD_CLOCK_HZ 25000000u
// Starts SysTick (processor clock, full 24-bit reload, wrap interrupt on).
void board_clock_start(void);
// Ticks since board_clock_start, monotonic, 64-bit.
uint64_t board_clock_ticks(void);
#ifdef __cplusplus
}
#endif
#endif  // GLASSBOX_TESTS_BAREMETAL_BOARD_CLOCK_H_
