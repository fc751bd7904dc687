#ifndef CTHREADSLOT_H
#define CTHREADSLOT_H

// One word per thread that Swift reads in an instruction or two: Swift has no thread-local
// variables of its own, and `pthread_getspecific` is a call into libc behind a lazy global
// (6 ns a request for `MemoryCache`, whose every lookup asks for its thread's record). Linked
// into an executable, the access is relaxed to a read relative to the thread pointer; in a
// shared library it stays a call to `__tls_get_addr`, still correct.
extern __thread long cthreadslot_value;

static inline long cthreadslot_get(void) { return cthreadslot_value; }
static inline void cthreadslot_set(long value) { cthreadslot_value = value; }

#endif
