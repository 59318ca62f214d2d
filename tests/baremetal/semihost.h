// ARM semihosting (bkpt 0xab on M-profile): the few calls the bare-metal
// program needs to write a file on the host and to end the run. qemu
// serves them with -semihosting-config enable=on,target=native.
#ifndef GLASSBOX_TESTS_BAREMETAL_SEMIHOST_H_
#define GLASSBOX_TESTS_BAREMETAL_SEMIHOST_H_
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
// Opens path for binary writing (truncating); returns the handle or -1.
int semihost_open_write(const char* path);
// Writes all of size bytes; returns 0 when every byte was written.
int semihost_write(int handle, const void* data, size_t size);
int semihost_close(int handle);
// Writes a string to qemu's standard error (":tt" opened for appending).
void semihost_write_error(const char* text);
// Ends qemu with status (0 success); does not return.
void semihost_exit(int status) __attribute__((noreturn));
#ifdef __cplusplus
}
#endif
#endif  // GLASSBOX_TESTS_BAREMETAL_SEMIHOST_H_
