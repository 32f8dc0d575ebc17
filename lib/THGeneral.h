#ifndef TH_GENERAL_H
#define TH_GENERAL_H

/* THGeneral: what every part of the core shares.
 *
 * Errors. No function in the core aborts, exits or longjmps. A function that fails records an
 * error kind and a message in thread-local storage and returns a failure value (-1 for an int
 * status, NULL for a pointer). The Python layer reads the pair with THError_kind() and
 * THError_message() and raises the matching exception. Checks happen before any allocation, or
 * the error path frees what it took: no leak on any error.
 */

#ifndef TH_CDEF
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "THVectorMath.h"

/* The address of a thread-local variable, computed once per function: in a shared library each
 * read of a thread-local is a call to __tls_get_addr, and gcc repeats that call after every
 * atomic operation (a compiler barrier) unless the address is an opaque value in a register. */
#define TH_TLS_ADDR(var)                 \
  __extension__({                        \
    __typeof__(&(var)) addr_ = &(var);   \
    __asm__("" : "+r"(addr_));           \
    addr_;                               \
  })
#endif

/* Token pasting for stamped names: THTensor_(add) -> THFloatTensor_add. */
#define TH_CONCAT_2_EXPAND(x, y) x##y
#define TH_CONCAT_2(x, y) TH_CONCAT_2_EXPAND(x, y)
#define TH_CONCAT_3_EXPAND(x, y, z) x##y##z
#define TH_CONCAT_3(x, y, z) TH_CONCAT_3_EXPAND(x, y, z)
#define TH_CONCAT_4_EXPAND(x, y, z, w) x##y##z##w
#define TH_CONCAT_4(x, y, z, w) TH_CONCAT_4_EXPAND(x, y, z, w)

/* The largest number of dimensions a tensor may have (PyTorch allows 64 as well). */
#define TH_MAX_DIM 64

/* Error kinds; each maps to one Python exception class. */
enum {
  TH_ERR_NONE = 0,
  TH_ERR_INDEX = 1,   /* IndexError   */
  TH_ERR_RUNTIME = 2, /* RuntimeError */
  TH_ERR_TYPE = 3,    /* TypeError    */
  TH_ERR_VALUE = 4,   /* ValueError   */
  TH_ERR_MEMORY = 5   /* MemoryError  */
};

int THError_kind(void);
const char *THError_message(void);
void THError_clear(void);
void THError_set(int kind, const char *fmt, ...);

/* Checked arithmetic: the one layer for sizes, strides, offsets and byte counts.
 * The rule: no raw `*` or `+` on a size, stride, offset or byte count that a caller (Python or
 * C) supplied; such arithmetic goes through THSize_mul / THSize_add / THSize_bytes (GCC's
 * __builtin_*_overflow), which return 0 and store the result, or -1 on overflow. Raw
 * arithmetic is allowed only on values a checked bound already covers: element offsets inside
 * a view whose extent THShape_span has checked against its storage (every kernel's walk), and
 * counts whose product was checked once (THShape_numel). `grep -n "THSize_" lib generic` lists
 * the checked places. */
int THSize_mul(int64_t *out, int64_t a, int64_t b);
int THSize_add(int64_t *out, int64_t a, int64_t b);
/* Bytes of n elements of elsize bytes: -1 with a MemoryError recorded (naming op) on overflow
 * or a negative n. */
int THSize_bytes(int64_t *out, const char *op, int64_t n, int64_t elsize);

/* Metadata allocation (size/stride arrays, contexts); sets a MemoryError on failure. */
void *THAlloc(size_t bytes);
/* n elements of elsize bytes (checked: NULL with a MemoryError naming op on overflow). */
void *THAllocArray(const char *op, int64_t n, int64_t elsize);
void *THRealloc(void *ptr, size_t bytes);
void THFree(void *ptr);
/* Metadata blocks THAlloc has handed out and THFree has not taken back (tensor headers, size
 * arrays, allocator contexts; a block resting in a struct cache below counts as taken back):
 * the leak tests compare it with a baseline. */
int64_t THAlloc_liveCount(void);

/* Per-thread counters: sums that many threads add to and few read (the allocators' allocation
 * counts). A thread adds to its own part with plain stores, no atomic read-modify-write; a sum
 * (into *out) adds up every living thread's part, under the registry's lock, and what exited
 * threads left. A slot outside [0, TH_THREAD_COUNTERS) is an IndexError (-1). */
enum { TH_THREAD_COUNTERS = 16 };
int THThreadCounter_add(int slot, int64_t n);
int THThreadCounter_sum(int slot, int64_t *out);

/* The struct cache: small metadata blocks (tensor and storage headers, size/stride arrays)
 * recycled instead of going back to malloc. Every thread keeps its own bounded free lists, one
 * per size class (multiples of 16 bytes up to TH_STRUCT_CACHE_MAX_BYTES), so taking and giving
 * a block costs no lock and no atomic read-modify-write; a block freed on another thread than
 * the one that made it simply joins the freeing thread's list. A list holds at most `limit`
 * blocks (TH_STRUCT_CACHE_LIMIT by default; beyond it blocks go back to malloc), and a thread's
 * lists are released when it exits. Under AddressSanitizer the default limit is 0 (no caching),
 * so a use after free of a header is still reported (see lib/THGeneral.c). */
enum { TH_STRUCT_CACHE_MAX_BYTES = 128, TH_STRUCT_CACHE_LIMIT = 128 };
/* Sets the bound of every list (0 turns the cache off; the calling thread's lists are trimmed
 * at once, other threads' as they next give a block back); returns the previous bound. */
int THStructCache_setLimit(int limit);
int THStructCache_limit(void);
/* Blocks resting in the calling thread's lists. */
int64_t THStructCache_cached(void);
/* Returns the calling thread's cached blocks to malloc. */
void THStructCache_flush(void);
/* Threads holding a record (a count and lists): those that made or freed a metadata block
 * and have not exited yet. */
int64_t THStructCache_threads(void);
#ifndef TH_CDEF
/* A block of at least bytes bytes (NULL with a MemoryError on failure), and its release: bytes
 * must be what the block was asked for with (it picks the size class). Larger requests than
 * TH_STRUCT_CACHE_MAX_BYTES are plain THAlloc / THFree. */
void *THStructCache_alloc(size_t bytes);
void THStructCache_free(void *ptr, size_t bytes);
#endif

/* Threads (OpenMP) and the grain size. An op's work is measured in bytes: its elements times
 * the bytes each touches (every operand's element), times a weight for costly kernels
 * (TH_WEIGHT_*). Below the grain an op stays on the calling thread: on this design's 2-core
 * reference machine a thread team costs 2-4 us, the time one core streams about 1 MiB
 * (benchmarks/bench_grain.py measures where a second thread starts to pay). */
#define TH_GRAIN_DEFAULT ((int64_t)1 << 20)
#define TH_WEIGHT_MEMORY 1       /* add, copy, fill, gather: bound by memory traffic */
#define TH_WEIGHT_TRANSCENDENTAL 4 /* exp, log, tanh, ...: a few dozen flops per element */
#define TH_WEIGHT_SORT 64        /* sorts, selections: log n compare-and-move passes */
#define TH_WEIGHT_TILED 8        /* a transposed walk (A + A.T): a cache line per element */
/* At most TH_MAX_THREADS: libgomp makes every thread of a team at once, and thousands of them
 * exhaust the stack or the thread limit and end the process. ValueError outside [1, max]. */
enum { TH_MAX_THREADS = 256 };
int THSetNumThreads(int n);
int THGetNumThreads(void);
/* The threads a kernel may use: OpenMP's count, or 1 in a process forked after its parent may
 * have started OpenMP threads. libgomp keeps its thread pool across fork() although the threads
 * are gone, so the child's first parallel region would wait for them forever (a DataLoader
 * worker forked after a large op hung so); such a child runs every kernel on its one thread.
 * Every kernel asks this, never omp_get_max_threads() directly, and only once its work is big
 * enough to split: asking counts as a team that may exist (so a parent that ran only small ops
 * forks children that keep their threads). */
int THThreads_max(void);
/* Whether this process is such a child: set_num_threads() there is refused. */
int THThreads_forkedAfterOpenMP(void);
void THSetGrainSize(int64_t bytes);
int64_t THGetGrainSize(void);
/* Whether `elements` elements of `bytes` weighted bytes each are worth a thread team: at least
 * the grain, more than one thread available, and not already inside a parallel region. */
int THParallel_worth(int64_t elements, int64_t bytes);
/* Whether a thread team was started (THParallel_worth said yes) or ran (THParallel_noteTeam)
 * within the last `ns` nanoseconds: after a region libgomp's workers spin a while (GOMP_SPINCOUNT), then sleep, and
 * waking them costs tens of microseconds on a virtual machine (lib/THBlas.c asks). */
int THParallel_recent(int64_t ns);
/* Records that a team ran just now (for kernels whose regions outlast that window). */
void THParallel_noteTeam(void);

/* What a bug report needs about this build: the compiler and flags it was built with (one line)
 * and the widest x86 vector extension this CPU offers, which glibc's libmvec picks its variant of
 * the vectorised math by at load time ("avx512f", "avx2", "sse4.2", "baseline"). */
const char *THGeneral_buildInfo(void);
const char *THGeneral_simdLevel(void);
int THGeneral_isSanitized(void);

/* Calls from Python, and structural mutation.
 * cffi releases the GIL around every call into the core, so two Python threads can be inside
 * it at once. Reading a tensor while another thread re-points it (set_), regrows it (resize_)
 * or moves its data (share_memory_) would read freed memory or a torn geometry. So every call
 * from Python is a *call section* (build_ffi.py hooks THCall_enter / THCall_leave into cffi's
 * wrapper of every function, right after it releases the GIL and right before it takes it back),
 * and a function about to change the structure of a tensor or storage that another thread may
 * be reading calls THCall_exclusive() first: it waits until it is the only call section in
 * progress and keeps new ones out until it returns. Ordinary ops never wait (two atomic updates
 * per call); headers created in the current call, or by THTensor_(new) for the next call of
 * the same thread (how the Python layer makes results for kernels to size), are private and
 * are reshaped without waiting (THCall_isPrivate).
 * Nested calls (a callback into Python that calls the core again) count once. */
int64_t THCall_active(void);   /* call sections in progress (this one included) */
int THCall_isExclusive(void);  /* whether this thread's call holds exclusivity */

#ifndef TH_CDEF
/* gil_take / gil_give: PyGILState_Ensure / PyGILState_Release, from the binding (NULL when
 * the core runs without Python). */
void THCall_enter(int (*gil_take)(void), void (*gil_give)(int));
void THCall_leave(void);
void THCall_exclusive(void);
/* A token naming the current call of this thread (next = 1: its next call). */
uint64_t THCall_token(int next);
/* Whether a header stamped with token was made by this thread's current (or, for tokens made
 * with next = 1, previous) call. */
int THCall_isPrivate(uint64_t token);

/* Argument checks: record the error and return RET from the calling function. */
#define THArgCheck(cond, kind, ret, ...) \
  do { if (!(cond)) { THError_set((kind), __VA_ARGS__); return ret; } } while (0)

/* Propagate a failure from a callee that has already recorded its error. */
#define THTry(expr, ret) do { if ((expr) != 0) return ret; } while (0)

#define TH_MIN(a, b) ((a) < (b) ? (a) : (b))
#define TH_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Formats sizes as PyTorch prints a shape, "[2, 3]" ("[]" for 0-dim), into buf; returns buf. */
const char *THSize_str(char *buf, size_t len, int ndim, const int64_t *size);
#define TH_SIZE_STR_LEN 512
#endif

#endif
