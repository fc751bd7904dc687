#ifndef CPREFETCH_H
#define CPREFETCH_H

// A hint that the cache line at `address` will soon be read and written: the CPU
// starts loading it and goes on. It never faults and changes no result, so a caller
// that knows its next accesses (the simulator knows the whole trace) can overlap
// their memory latency. Swift has no spelling for it.
static inline void cprefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
