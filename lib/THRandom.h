#ifndef TH_RANDOM_H
#define TH_RANDOM_H

/* THGenerator: a 32-bit Mersenne Twister (MT19937, Matsumoto & Nishimura 1998) as an object.
 *
 * 1. The engine. 624 words of state produce 624 outputs at a time: when they are used up the
 *    whole block is regenerated ("twisted"), and each output is tempered on the way out. The
 *    period is 2^19937 - 1. Seeds below 2^32 go through the reference init_genrand, so a seed
 *    gives the same words as numpy's MT19937 legacy seeding (RandomState(seed)); larger seeds
 *    go through init_by_array with the seed's two 32-bit halves (low first), so every bit of a
 *    64-bit seed matters.
 * 2. Draws built on it: a 64-bit draw is two outputs (first = high half); a uniform double has
 *    53 random bits (the reference genrand_res53: 27 bits of one output, 26 of the next);
 *    bounded integers are unbiased (Lemire's multiply-and-reject); normals come from the
 *    Box-Muller transform, which makes two at a time: the second is cached in the generator,
 *    is part of its state and is returned by the next normal draw.
 * 3. Sharing. A generator may be used from several threads (cffi releases the GIL): each has a
 *    mutex, and a tensor-filling kernel holds it for the whole fill (one lock per tensor, not
 *    per number), so a fill takes a contiguous run of the stream whatever the threads do.
 *    Generators are refcounted (THGenerator_retain / _free); THGenerator_default() is the
 *    process-wide one, created on first use and never released (a forked child gets a
 *    fresh mutex for it and a copy of the parent's stream, as with PyTorch).
 * 4. Two normal streams. Double tensors (and THRandom_normal) take normals computed in double
 *    precision from 53-bit uniforms with the C library's log/cos/sin. Float, half and bfloat16
 *    tensors take normals computed in float from 24-bit uniforms (one output each) with this
 *    file's own vectorisable log / sin / cos (THRandom_normalFloatPairs, a few ulp), many
 *    pairs at a time: that is what makes randn as fast as PyTorch's (24-bit uniforms bound
 *    |z| by sqrt(48 log 2) = 5.77, as PyTorch's float path does). Each stream has its own
 *    cached second value (PyTorch keeps two as well), and both are part of the state.
 * 5. State. THGenerator_getState serialises a generator into a ByteTensor of
 *    TH_GENERATOR_STATE_SIZE bytes with a fixed little-endian layout, the same on every
 *    machine, so a state saved by one process restores in another:
 *        offset  bytes  field
 *             0      4  magic: the ASCII bytes "THMT"
 *             4      4  layout version, uint32 = 1
 *             8      8  initial seed, uint64
 *            16   2496  Mersenne Twister state: 624 x uint32
 *          2512      4  position: outputs of the current block already used, uint32 in [0, 624]
 *                       (624: the next draw regenerates the block)
 *          2516      4  cached double normal present, uint32 0 or 1
 *          2520      8  cached double normal, IEEE-754 binary64 bits as uint64
 *          2528      4  cached float normal present, uint32 0 or 1
 *          2532      4  cached float normal, IEEE-754 binary32 bits as uint32
 *          2536         total
 *    THGenerator_setState checks the size and every field (magic, version, position, flags,
 *    finite cached values, a state that is not all zero) before touching the generator, and
 *    fails with a RuntimeError on any mismatch.
 */

#include "THGeneral.h"
#include "THAtomic.h"
#include "THTensor.h"

#ifndef TH_CDEF
#include <math.h>
#include <pthread.h>
#endif

#define TH_MT_N 624
/* Bytes in a serialised state (an enum so the cffi binding sees it). */
enum { TH_GENERATOR_STATE_SIZE = 2536 };
/* PyTorch's default seed for new generators. */
#define TH_GENERATOR_DEFAULT_SEED 67280421310721ULL

typedef struct THGenerator THGenerator;

/* A new generator seeded with TH_GENERATOR_DEFAULT_SEED (NULL with a MemoryError). */
THGenerator *THGenerator_new(void);
void THGenerator_retain(THGenerator *gen);
void THGenerator_free(THGenerator *gen);
/* The process-wide generator (seeded non-deterministically when first used); borrowed. */
THGenerator *THGenerator_default(void);

/* Restarts the stream from seed (any 64-bit value). */
void THGenerator_manualSeed(THGenerator *gen, uint64_t seed);
/* Reseeds from the operating system's entropy and returns the new seed. */
uint64_t THGenerator_seed(THGenerator *gen);
/* The seed the current stream started from. */
uint64_t THGenerator_initialSeed(THGenerator *gen);
/* Resizes out to TH_GENERATOR_STATE_SIZE bytes and writes the state (layout above). */
int THGenerator_getState(THGenerator *gen, THByteTensor *out);
/* Restores a state written by getState; RuntimeError (generator untouched) if it is invalid. */
int THGenerator_setState(THGenerator *gen, THByteTensor *state);

/* Single draws, each taking the generator's lock: a 32-bit output, a 64-bit draw, a uniform
 * double in [0, 1) with 53 random bits, a standard normal. */
uint32_t THRandom_random(THGenerator *gen);
uint64_t THRandom_random64(THGenerator *gen);
double THRandom_uniform(THGenerator *gen);
double THRandom_normal(THGenerator *gen);

#ifndef TH_CDEF
struct THGenerator {
  uint32_t mt[TH_MT_N];
  int pos;             /* outputs of the current block used; TH_MT_N: regenerate first */
  uint64_t seed;       /* the initial seed */
  int normal_valid;    /* the second Box-Muller value is waiting in normal_next */
  double normal_next;
  int normal_float_valid; /* the same for the float stream */
  float normal_float_next;
  pthread_mutex_t mutex;
  TH_ATOMIC int32_t refcount;
};

/* A kernel takes the lock once around a whole fill and uses the th_* draws below inside. */
void THGenerator_lock(THGenerator *gen);
void THGenerator_unlock(THGenerator *gen);
/* Regenerates the block of TH_MT_N words (the "twist"). */
void THGenerator_twist(THGenerator *gen);
/* Bulk draws: out receives the next n outputs (the same as n th_random32 calls, faster). */
void THRandom_fill32(THGenerator *gen, uint32_t *out, int64_t n);
/* u receives the next n uniform doubles (the same as n th_uniform_double calls, faster). */
void THRandom_fillUniform(THGenerator *gen, double *u, int64_t n);
/* Pure arithmetic: npairs Box-Muller pairs z[2i], z[2i+1] from the outputs w[2i] (the angle) and
 * w[2i+1] (the radius), in float. */
void THRandom_normalFloatPairs(const uint32_t *w, float *z, int64_t npairs);

/* Words a bulk kernel draws at a time (a stack buffer). */
#define TH_RANDOM_CHUNK 256

/* ---- draws: the caller holds gen's lock ---------------------------------------------------- */

static inline uint32_t th_random32(THGenerator *g) {
  if (g->pos >= TH_MT_N) THGenerator_twist(g);
  uint32_t y = g->mt[g->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

static inline uint64_t th_random64(THGenerator *g) {
  uint64_t hi = th_random32(g);
  return (hi << 32) | th_random32(g);
}

/* Uniform double in [0, 1) with 53 random bits (genrand_res53). */
static inline double th_uniform_double(THGenerator *g) {
  uint32_t a = th_random32(g) >> 5, b = th_random32(g) >> 6;
  return ((double)a * 67108864.0 + (double)b) * (1.0 / 9007199254740992.0);
}

/* Uniform in [0, 1) on the grid of 2^-bits from one output (bits <= 32): with bits = the
 * significand width of a float type, every value is exact in that type, so 1 is never
 * reached by rounding. */
static inline double th_uniform_bits(THGenerator *g, int bits) {
  return (double)(th_random32(g) >> (32 - bits)) * ldexp(1.0, -bits);
}

/* Unbiased integer in [0, range) (Lemire 2019: the high half of x * range, rejecting the few
 * x whose low half falls in the short interval). range 0 means 2^64. */
static inline uint32_t th_bounded32(THGenerator *g, uint32_t range) {
  uint64_t m = (uint64_t)th_random32(g) * range;
  uint32_t low = (uint32_t)m;
  if (low < range) {
    uint32_t threshold = (uint32_t)(-range) % range;
    while (low < threshold) {
      m = (uint64_t)th_random32(g) * range;
      low = (uint32_t)m;
    }
  }
  return (uint32_t)(m >> 32);
}

static inline uint64_t th_bounded64(THGenerator *g, uint64_t range) {
  if (range == 0) return th_random64(g);
  if (range <= 0xffffffffu) return th_bounded32(g, (uint32_t)range);
  if (range == 0x100000000u) return th_random32(g);
  __extension__ typedef unsigned __int128 th_u128;
  th_u128 m = (th_u128)th_random64(g) * range;
  uint64_t low = (uint64_t)m;
  if (low < range) {
    uint64_t threshold = (-range) % range;
    while (low < threshold) {
      m = (th_u128)th_random64(g) * range;
      low = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

/* A pair of independent standard normals from two uniforms (Box-Muller). */
static inline void th_box_muller(THGenerator *g, double *z0, double *z1) {
  double u1 = th_uniform_double(g), u2 = th_uniform_double(g);
  double radius = sqrt(-2.0 * log1p(-u2)); /* 1 - u2 is in (0, 1]: the log is finite */
  double theta = 6.283185307179586476925286766559 * u1;
  *z0 = radius * cos(theta);
  *z1 = radius * sin(theta);
}

/* A standard normal: the cached second value when there is one, else a new pair. */
static inline double th_normal(THGenerator *g) {
  if (g->normal_valid) {
    g->normal_valid = 0;
    return g->normal_next;
  }
  double z0;
  th_box_muller(g, &z0, &g->normal_next);
  g->normal_valid = 1;
  return z0;
}

/* A standard normal from the float stream (see 4. above). */
static inline float th_normal_float(THGenerator *g) {
  if (g->normal_float_valid) {
    g->normal_float_valid = 0;
    return g->normal_float_next;
  }
  uint32_t w[2];
  float z[2];
  THRandom_fill32(g, w, 2);
  THRandom_normalFloatPairs(w, z, 1);
  g->normal_float_next = z[1];
  g->normal_float_valid = 1;
  return z[0];
}

/* Exp(1): -log(1 - u), finite since 1 - u is in (0, 1]. */
static inline double th_standard_exponential(THGenerator *g) {
  return -log1p(-th_uniform_double(g));
}
#endif

#endif
