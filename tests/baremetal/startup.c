// Reset handler and vector table of the mps2-an385 image: copies .data
// and the TLS image from their load addresses, clears .bss and .tbss, runs
// the static constructors, calls main and reports its status to the host
// through semihosting's exit.
#include <errno.h>
#include <stdint.h>

#include "semihost.h"

extern uint32_t __data_load, __data_start, __data_end, __bss_start, __bss_end, __stack_top;
extern uint8_t __tdata_load, __tls_start, __tdata_end, __tls_end;
extern void (*__init_array_start[])(void);
extern void (*__init_array_end[])(void);
int main(void);

void Reset_Handler(void) {
  uint32_t* src = &__data_load;
  for (uint32_t* dst = &__data_start; dst < &__data_end;) *dst++ = *src++;
  for (uint32_t* dst = &__bss_start; dst < &__bss_end;) *dst++ = 0;
  // The TLS block, by bytes: its parts need not be word-sized.
  const uint8_t* tls_src = &__tdata_load;
  for (uint8_t* dst = &__tls_start; dst < &__tdata_end;) *dst++ = *tls_src++;
  for (uint8_t* dst = &__tdata_end; dst < &__tls_end;) *dst++ = 0;
  for (void (**f)(void) = __init_array_start; f < __init_array_end; ++f) (*f)();
  semihost_exit(main());
}

// The C++ runtime registers static destructors under this image's handle
// (crtbegin's, which a -nostartfiles link does not have).
void* __dso_handle = 0;

// No heap is placed: the program must not allocate, and an allocation
// fails (malloc returns null) instead of growing into the stack as
// newlib's nosys sbrk would. The device layers reach malloc only in the
// modes this image does not use (ETDumpGen's heap mode).
void* _sbrk(intptr_t increment) {
  (void)increment;
  errno = ENOMEM;
  return (void*)-1;
}

// Any fault ends the run with a failing status instead of hanging qemu
// until its timeout.
static void Fault_Handler(void) { semihost_exit(3); }

// SysTick's wrap interrupt: a program that starts SysTick with its
// interrupt on defines it (board_clock.c); unexpected, it is a fault.
void SysTick_Handler(void) __attribute__((weak, alias("Fault_Handler")));

// Cortex-M exceptions 0-15 (0 marks the reserved ones).
__attribute__((section(".vectors"), used)) static void* const vectors[] = {
    &__stack_top,            // initial stack pointer
    (void*)Reset_Handler,    // reset
    (void*)Fault_Handler,    // NMI
    (void*)Fault_Handler,    // HardFault
    (void*)Fault_Handler,    // MemManage
    (void*)Fault_Handler,    // BusFault
    (void*)Fault_Handler,    // UsageFault
    0,                       // reserved
    0,                       // reserved
    0,                       // reserved
    0,                       // reserved
    (void*)Fault_Handler,    // SVCall
    (void*)Fault_Handler,    // DebugMonitor
    0,                       // reserved
    (void*)Fault_Handler,    // PendSV
    (void*)SysTick_Handler,  // SysTick
};
