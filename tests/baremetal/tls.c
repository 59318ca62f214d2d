// Thread-local storage for the one thread (the ETDump writer keeps its
// claimed record run in a thread_local). ARM's TLS model reads the thread
// pointer from __aeabi_read_tp, which may change r0 only: a two-instruction
// function that returns the address the linker script reserves
// (mps2_an385.ld: the TLS block in RAM, 8 bytes of thread control block
// before it); the reset handler fills the block from its image.
__attribute__((naked)) void* __aeabi_read_tp(void) {
  __asm__("ldr r0, =__tls_thread_pointer\n bx lr");
}
