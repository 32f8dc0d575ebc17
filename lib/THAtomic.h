#ifndef TH_ATOMIC_H
#define TH_ATOMIC_H

/* Reference counts and allocator counters are C11 atomics, so storages and tensors may be
 * retained and freed from any thread (cffi releases the GIL around every call).
 * While build_ffi.py derives the cffi declarations (TH_CDEF), TH_ATOMIC is empty: cffi sees a
 * plain integer of the same size, which is all Python ever reads. */
#ifdef TH_CDEF
#define TH_ATOMIC
#else
#include <stdatomic.h>
#define TH_ATOMIC _Atomic
#endif

#ifndef TH_CDEF
#define THAtomic_incr(p) atomic_fetch_add_explicit((p), 1, memory_order_relaxed)
/* Returns true when this decrement released the last reference. */
#define THAtomic_decrRelease(p) (atomic_fetch_sub_explicit((p), 1, memory_order_acq_rel) == 1)
#define THAtomic_load(p) atomic_load_explicit((p), memory_order_relaxed)
#define THAtomic_add(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#endif

#endif
