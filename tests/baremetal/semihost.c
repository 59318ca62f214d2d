#include "semihost.h"

#include <stdint.h>
#include <string.h>

enum { SYS_OPEN = 0x01, SYS_CLOSE = 0x02, SYS_WRITE = 0x05, SYS_EXIT_EXTENDED = 0x20 };

static int semihost_call(int op, const void* args) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = args;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

int semihost_open_write(const char* path) {
  // Mode 5 is fopen's "wb".
  const uintptr_t args[3] = {(uintptr_t)path, 5, strlen(path)};
  return semihost_call(SYS_OPEN, args);
}

int semihost_write(int handle, const void* data, size_t size) {
  // SYS_WRITE returns the number of bytes NOT written.
  const uintptr_t args[3] = {(uintptr_t)handle, (uintptr_t)data, size};
  return semihost_call(SYS_WRITE, args) == 0 ? 0 : -1;
}

int semihost_close(int handle) {
  const uintptr_t args[1] = {(uintptr_t)handle};
  return semihost_call(SYS_CLOSE, args);
}

void semihost_write_error(const char* text) {
  // ":tt" is the console; mode 8 ("a") selects standard error.
  static int handle = -1;
  if (handle < 0) {
    const char tt[] = ":tt";
    const uintptr_t args[3] = {(uintptr_t)tt, 8, 3};
    handle = semihost_call(SYS_OPEN, args);
    if (handle < 0) return;
  }
  (void)semihost_write(handle, text, strlen(text));
}

void semihost_exit(int status) {
  // ADP_Stopped_ApplicationExit with a status (SYS_EXIT_EXTENDED).
  const uintptr_t args[2] = {0x20026, (uintptr_t)status};
  semihost_call(SYS_EXIT_EXTENDED, args);
  for (;;) {
  }
}
