/* Touching the application's registered memory without dying of it: a
 * copy, a CRC or an atomic that meets a page the application has unmapped
 * answers EFAULT instead of raising SIGSEGV or SIGBUS in the process. */
#ifndef EMU_MEMGUARD_H
#define EMU_MEMGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * Install the SIGSEGV and SIGBUS handler that makes the guarded calls
 * below recover, once per process (later calls do nothing). Any fault
 * outside a guarded call, or inside one at an address it was not given,
 * goes on to the handler that was there before, as if ours were not. 0,
 * or the errno of sigaction (the guarded calls then still work, but a
 * fault in one kills the process as before).
 */
int emu_guard_install(void);

/* memcpy(dst, src, n): 0, or EFAULT when a page of either was missing or
 * lacked the protection (dst may then be partly written). */
int emu_guard_copy(void *dst, const void *src, size_t n);

/* *crc = icrc_update(*crc, ...) over the n pieces at v in order: 0, or
 * EFAULT when a page of one was missing (*crc is then unchanged). */
int emu_guard_icrc(uint32_t *crc, const struct iovec *v, unsigned int n);

/* Read a byte of every page of the n pieces at v: 0, or EFAULT when one
 * is missing (what a send that leaves without an ICRC checks instead). */
int emu_guard_touch(const struct iovec *v, unsigned int n);

/* The responder's atomic on the 8-byte word at t (sequentially
 * consistent against the CPU): compare-and-swap of compare with val when
 * cas, else fetch-and-add of val; *orig the word before. 0, or EFAULT
 * when its page was missing or not writable (nothing changed then). */
int emu_guard_atomic(uint64_t *t, bool cas, uint64_t compare, uint64_t val,
		     uint64_t *orig);

#endif
