// Reset handler and vector table of the mps2-an385 image: copies .data
// from its load address, clears .bss, runs the static constructors, calls
// main and reports its status to the host through semihosting's exit.
#include <stdint.h>

#include "semihost.h"

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);
int main(void);

void Reset_Handler(void) {
  uint32_t* src = &__data_load;
  for (uint32_t* dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (uint32_t* dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  semihost_exit(main());
}

// Any fault ends the run with a failing status instead of hanging qemu
// until its timeout.
static void Fault_Handler(void) { semihost_exit(3); }

__attribute__((section(".vectors"), used)) static void* const vectors[] = {
    &__stack_top,         (void*)Reset_Handler, (void*)Fault_Handler, (void*)Fault_Handler,
    (void*)Fault_Handler, (void*)Fault_Handler, (void*)Fault_Handler,
};
