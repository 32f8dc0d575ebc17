#include "THRandom.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>

/* MT19937's constants, from the reference implementation's description. */
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

static const char TH_STATE_MAGIC[4] = {'T', 'H', 'M', 'T'};
#define TH_STATE_VERSION 1u

/* ---- the engine ------------------------------------------------------------------------------ */

/* init_genrand: the state from a 32-bit seed by Knuth's multiplicative recurrence. */
static void mt_init(uint32_t *mt, uint32_t s) {
  mt[0] = s;
  for (uint32_t i = 1; i < TH_MT_N; i++)
    mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
}

/* init_by_array: the state from a key of several 32-bit words. */
static void mt_init_by_array(uint32_t *mt, const uint32_t *key, int len) {
  mt_init(mt, 19650218u);
  int i = 1, j = 0;
  for (int k = TH_MT_N > len ? TH_MT_N : len; k > 0; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
    i++;
    j++;
    if (i >= TH_MT_N) {
      mt[0] = mt[TH_MT_N - 1];
      i = 1;
    }
    if (j >= len) j = 0;
  }
  for (int k = TH_MT_N - 1; k > 0; k--) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
    i++;
    if (i >= TH_MT_N) {
      mt[0] = mt[TH_MT_N - 1];
      i = 1;
    }
  }
  mt[0] = 0x80000000u; /* the most significant bit is 1: a non-zero initial state */
}

static inline uint32_t mt_mix(uint32_t upper, uint32_t lower, uint32_t far) {
  uint32_t y = (upper & MT_UPPER) | (lower & MT_LOWER);
  return far ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX_A : 0u);
}

void THGenerator_twist(THGenerator *g) {
  uint32_t *mt = g->mt;
  int k = 0;
  for (; k < TH_MT_N - MT_M; k++) mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M]);
  for (; k < TH_MT_N - 1; k++) mt[k] = mt_mix(mt[k], mt[k + 1], mt[k + MT_M - TH_MT_N]);
  mt[TH_MT_N - 1] = mt_mix(mt[TH_MT_N - 1], mt[0], mt[MT_M - 1]);
  g->pos = 0;
}

void THRandom_fill32(THGenerator *g, uint32_t *out, int64_t n) {
  while (n > 0) {
    if (g->pos >= TH_MT_N) THGenerator_twist(g);
    const int64_t m = TH_MIN(n, (int64_t)(TH_MT_N - g->pos));
    const uint32_t *src = g->mt + g->pos;
    for (int64_t k = 0; k < m; k++) { /* the tempering of th_random32, vectorised */
      uint32_t y = src[k];
      y ^= y >> 11;
      y ^= (y << 7) & 0x9d2c5680u;
      y ^= (y << 15) & 0xefc60000u;
      out[k] = y ^ (y >> 18);
    }
    g->pos += (int)m;
    out += m;
    n -= m;
  }
}

void THRandom_fillUniform(THGenerator *g, double *u, int64_t n) {
  uint32_t w[TH_RANDOM_CHUNK];
  while (n > 0) {
    const int64_t m = TH_MIN(n, TH_RANDOM_CHUNK / 2);
    THRandom_fill32(g, w, 2 * m);
    for (int64_t k = 0; k < m; k++) /* genrand_res53, as th_uniform_double */
      u[k] = ((double)(w[2 * k] >> 5) * 67108864.0 + (double)(w[2 * k + 1] >> 6)) *
             (1.0 / 9007199254740992.0);
    u += m;
    n -= m;
  }
}

/* ---- float normals ------------------------------------------------------------------------------
 * Box-Muller in float: z0 = r cos(2 pi u1), z1 = r sin(2 pi u1), r = sqrt(-2 log(1 - u2)), with
 * u1, u2 the top 24 bits of one output each. The C library's logf / sqrtf / sincosf cannot be
 * vectorised (errno, calls), so the loop uses branch-free versions of its own, written as plain
 * arithmetic the compiler turns into SIMD code:
 *   - log: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) by Cephes' minimax polynomial in
 *     m - 1 and e log(2) added in two parts (Cody-Waite) to keep the rounding error small;
 *   - sqrt: Newton's iteration for 1/sqrt(x) from the classic bit-level first guess, three steps,
 *     then x * (1/sqrt(x));
 *   - sin / cos of 2 pi u: u is an exact multiple of 2^-24, so u - q/4 with q = round(4u) is exact
 *     (the reduction costs no accuracy); t = 2 pi (u - q/4) lies in [-pi/4, pi/4] where Cephes'
 *     polynomials for sin and cos are accurate to float precision, and the quadrant q swaps and
 *     negates them.
 * Each output differs from the exactly computed r cos / r sin by less than 3e-7 r: a few float
 * ulp (at most 5 over 2e7 draws measured against double precision). */

static inline float th_bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t th_float_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
/* mask ? a : b for a mask of all ones or all zeros, without a branch. */
static inline float th_select(uint32_t mask, float a, float b) {
  return th_bits_to_float((th_float_to_bits(a) & mask) | (th_float_to_bits(b) & ~mask));
}

/* log(x) for a normal float x > 0. */
static inline float th_logf(float x) {
  uint32_t bits = th_float_to_bits(x);
  int32_t e = (int32_t)(bits >> 23) - 126;
  float m = th_bits_to_float((bits & 0x007fffffu) | 0x3f000000u); /* x = m 2^e, m in [0.5, 1) */
  uint32_t low = -(uint32_t)(m < 0.70710678118654752440f);
  e -= (int32_t)(low & 1u);
  m = th_select(low, m + m, m) - 1.0f; /* now x = (1 + m) 2^e, 1 + m in [sqrt(1/2), sqrt(2)) */
  float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  float fe = (float)e;
  y += -2.12194440e-4f * fe; /* log(2) = 0.693359375 - 2.12194440e-4 */
  y += -0.5f * z;
  return m + y + 0.693359375f * fe;
}

/* sqrt(x) for x >= 0 (0 gives 0). */
static inline float th_sqrtf(float x) {
  float y = th_bits_to_float(0x5f3759dfu - (th_float_to_bits(x) >> 1));
  float h = 0.5f * x;
  y = y * (1.5f - h * y * y);
  y = y * (1.5f - h * y * y);
  y = y * (1.5f - h * y * y);
  return x * y;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TH_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TH_SIMD_CLONES
#endif

TH_SIMD_CLONES
void THRandom_normalFloatPairs(const uint32_t *restrict w, float *restrict z, int64_t npairs) {
  for (int64_t i = 0; i < npairs; i++) {
    const float u1 = (float)(w[2 * i] >> 8) * (1.0f / 16777216.0f);
    const float v = 1.0f - (float)(w[2 * i + 1] >> 8) * (1.0f / 16777216.0f); /* (0, 1] */
    const float r = th_sqrtf(-2.0f * th_logf(v));
    const int32_t q = (int32_t)(4.0f * u1 + 0.5f);
    const float t = (u1 - 0.25f * (float)q) * 6.28318530717958647692f;
    const float tt = t * t;
    const float s =
        ((-1.9515295891e-4f * tt + 8.3321608736e-3f) * tt - 1.6666654611e-1f) * tt * t + t;
    const float c = ((2.443315711809948e-5f * tt - 1.388731625493765e-3f) * tt +
                     4.166664568298827e-2f) * tt * tt - 0.5f * tt + 1.0f;
    /* sin(t + q pi/2), cos(t + q pi/2): odd q swaps sin and cos, then signs follow q */
    const uint32_t swap = -((uint32_t)q & 1u);
    const float sq = th_select(swap, c, s), cq = th_select(swap, s, c);
    z[2 * i] = r * th_bits_to_float(th_float_to_bits(cq) ^ ((((uint32_t)q + 1u) & 2u) << 30));
    z[2 * i + 1] = r * th_bits_to_float(th_float_to_bits(sq) ^ (((uint32_t)q & 2u) << 30));
  }
}

/* ---- lifetime and seeding ------------------------------------------------------------------- */

static void THGenerator_reseed(THGenerator *g, uint64_t seed) {
  if (seed <= 0xffffffffu) {
    mt_init(g->mt, (uint32_t)seed);
  } else {
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    mt_init_by_array(g->mt, key, 2);
  }
  g->pos = TH_MT_N;
  g->seed = seed;
  g->normal_valid = 0;
  g->normal_next = 0.0;
  g->normal_float_valid = 0;
  g->normal_float_next = 0.0f;
}

static int THGenerator_init(THGenerator *g, uint64_t seed) {
  memset(g, 0, sizeof *g);
  if (pthread_mutex_init(&g->mutex, NULL) != 0) {
    THError_set(TH_ERR_RUNTIME, "Generator(): cannot create the generator's mutex");
    return -1;
  }
  atomic_init(&g->refcount, 1);
  THGenerator_reseed(g, seed);
  return 0;
}

THGenerator *THGenerator_new(void) {
  THGenerator *g = THAlloc(sizeof *g);
  if (!g) return NULL;
  if (THGenerator_init(g, TH_GENERATOR_DEFAULT_SEED) != 0) {
    THFree(g);
    return NULL;
  }
  return g;
}

void THGenerator_retain(THGenerator *gen) {
  if (gen) THAtomic_incr(&gen->refcount);
}

void THGenerator_free(THGenerator *gen) {
  if (!gen || !THAtomic_decrRelease(&gen->refcount)) return;
  pthread_mutex_destroy(&gen->mutex);
  THFree(gen);
}

void THGenerator_lock(THGenerator *gen) { pthread_mutex_lock(&gen->mutex); }
void THGenerator_unlock(THGenerator *gen) { pthread_mutex_unlock(&gen->mutex); }

/* 64 bits from the operating system; the clock and an address if it has none to give. */
static uint64_t THRandom_entropy(void) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, 0) == (ssize_t)sizeof seed) return seed;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  seed = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ (uint64_t)(uintptr_t)&ts;
  return seed * 0x9e3779b97f4a7c15u;
}

static THGenerator th_default_generator;
static pthread_once_t th_default_once = PTHREAD_ONCE_INIT;

/* A child forked while another thread held the lock would otherwise wait on it forever. */
static void THGenerator_afterFork(void) { pthread_mutex_init(&th_default_generator.mutex, NULL); }

static void THGenerator_initDefault(void) {
  /* A default mutex cannot fail to initialise on Linux; the default generator is never freed
   * (its refcount starts at 1 and belongs to the process). */
  (void)THGenerator_init(&th_default_generator, THRandom_entropy());
  pthread_atfork(NULL, NULL, THGenerator_afterFork);
}

THGenerator *THGenerator_default(void) {
  pthread_once(&th_default_once, THGenerator_initDefault);
  return &th_default_generator;
}

void THGenerator_manualSeed(THGenerator *gen, uint64_t seed) {
  THGenerator_lock(gen);
  THGenerator_reseed(gen, seed);
  THGenerator_unlock(gen);
}

uint64_t THGenerator_seed(THGenerator *gen) {
  uint64_t seed = THRandom_entropy();
  THGenerator_manualSeed(gen, seed);
  return seed;
}

uint64_t THGenerator_initialSeed(THGenerator *gen) {
  THGenerator_lock(gen);
  uint64_t seed = gen->seed;
  THGenerator_unlock(gen);
  return seed;
}

/* ---- state ------------------------------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static uint64_t get64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Field offsets of the layout documented in THRandom.h. */
enum {
  ST_MAGIC = 0,
  ST_VERSION = 4,
  ST_SEED = 8,
  ST_MT = 16,
  ST_POS = ST_MT + 4 * TH_MT_N,
  ST_NORMAL_VALID = ST_POS + 4,
  ST_NORMAL = ST_NORMAL_VALID + 4,
  ST_FLOAT_VALID = ST_NORMAL + 8,
  ST_FLOAT_NORMAL = ST_FLOAT_VALID + 4,
  ST_SIZE = ST_FLOAT_NORMAL + 4
};
_Static_assert((int)ST_SIZE == (int)TH_GENERATOR_STATE_SIZE,
               "the state layout and its size disagree");

int THGenerator_getState(THGenerator *gen, THByteTensor *out) {
  uint8_t buf[ST_SIZE];
  int64_t size = ST_SIZE;
  THTry(THByteTensor_resize(out, 1, &size), -1);
  THTry(THByteTensor_checkBounds(out, "get_state()"), -1);
  THGenerator_lock(gen);
  memcpy(buf + ST_MAGIC, TH_STATE_MAGIC, 4);
  put32(buf + ST_VERSION, TH_STATE_VERSION);
  put64(buf + ST_SEED, gen->seed);
  for (int i = 0; i < TH_MT_N; i++) put32(buf + ST_MT + 4 * i, gen->mt[i]);
  put32(buf + ST_POS, (uint32_t)gen->pos);
  put32(buf + ST_NORMAL_VALID, (uint32_t)gen->normal_valid);
  uint64_t bits;
  memcpy(&bits, &gen->normal_next, sizeof bits);
  put64(buf + ST_NORMAL, bits);
  put32(buf + ST_FLOAT_VALID, (uint32_t)gen->normal_float_valid);
  put32(buf + ST_FLOAT_NORMAL, th_float_to_bits(gen->normal_float_next));
  THGenerator_unlock(gen);
  uint8_t *data = THByteTensor_data(out);
  for (int64_t i = 0; i < ST_SIZE; i++) data[i * out->stride[0]] = buf[i];
  return 0;
}

/* Checks every field of a serialised state; 0 if it can be loaded. */
static int THGenerator_checkState(const uint8_t *buf) {
  const char *op = "set_state()";
  THArgCheck(memcmp(buf + ST_MAGIC, TH_STATE_MAGIC, 4) == 0, TH_ERR_RUNTIME, -1,
             "%s: invalid generator state: it does not start with the magic bytes \"THMT\"", op);
  uint32_t version = get32(buf + ST_VERSION);
  THArgCheck(version == TH_STATE_VERSION, TH_ERR_RUNTIME, -1,
             "%s: invalid generator state: layout version %u, expected %u", op, version,
             TH_STATE_VERSION);
  uint32_t pos = get32(buf + ST_POS);
  THArgCheck(pos <= TH_MT_N, TH_ERR_RUNTIME, -1,
             "%s: invalid generator state: position %u is outside [0, %d]", op, pos, TH_MT_N);
  uint32_t valid = get32(buf + ST_NORMAL_VALID), fvalid = get32(buf + ST_FLOAT_VALID);
  THArgCheck(valid <= 1 && fvalid <= 1, TH_ERR_RUNTIME, -1,
             "%s: invalid generator state: cached-normal flags are %u and %u, expected 0 or 1", op,
             valid, fvalid);
  uint64_t bits = get64(buf + ST_NORMAL);
  double normal;
  memcpy(&normal, &bits, sizeof normal);
  float fnormal = th_bits_to_float(get32(buf + ST_FLOAT_NORMAL));
  THArgCheck((!valid || isfinite(normal)) && (!fvalid || isfinite(fnormal)), TH_ERR_RUNTIME, -1,
             "%s: invalid generator state: a cached normal value is not finite", op);
  /* The twist reads only the top bit of word 0; with the rest zero the stream is all zeros. */
  int degenerate = (get32(buf + ST_MT) & MT_UPPER) == 0;
  for (int i = 1; degenerate && i < TH_MT_N; i++) degenerate = get32(buf + ST_MT + 4 * i) == 0;
  THArgCheck(!degenerate, TH_ERR_RUNTIME, -1,
             "%s: invalid mt19937 state: the Mersenne Twister words are all zero", op);
  return 0;
}

int THGenerator_setState(THGenerator *gen, THByteTensor *state) {
  THTry(THByteTensor_checkBounds(state, "set_state()"), -1);
  int64_t n = THByteTensor_nElement(state);
  THArgCheck(n == ST_SIZE, TH_ERR_RUNTIME, -1,
             "set_state(): expected a generator state of %d bytes but found the input state "
             "size to be %lld", ST_SIZE, (long long)n);
  THByteTensor *src = THByteTensor_newContiguous(state);
  if (!src) return -1;
  uint8_t buf[ST_SIZE];
  memcpy(buf, THByteTensor_data(src), ST_SIZE);
  THByteTensor_free(src);
  THTry(THGenerator_checkState(buf), -1);

  uint64_t bits = get64(buf + ST_NORMAL);
  THGenerator_lock(gen);
  gen->seed = get64(buf + ST_SEED);
  for (int i = 0; i < TH_MT_N; i++) gen->mt[i] = get32(buf + ST_MT + 4 * i);
  gen->pos = (int)get32(buf + ST_POS);
  gen->normal_valid = (int)get32(buf + ST_NORMAL_VALID);
  memcpy(&gen->normal_next, &bits, sizeof bits);
  gen->normal_float_valid = (int)get32(buf + ST_FLOAT_VALID);
  gen->normal_float_next = th_bits_to_float(get32(buf + ST_FLOAT_NORMAL));
  THGenerator_unlock(gen);
  return 0;
}

/* ---- single draws ---------------------------------------------------------------------------- */

#define TH_LOCKED_DRAW(TYPE, NAME, EXPR) \
  TYPE NAME(THGenerator *gen) {          \
    THGenerator_lock(gen);               \
    TYPE v = EXPR;                       \
    THGenerator_unlock(gen);             \
    return v;                            \
  }

TH_LOCKED_DRAW(uint32_t, THRandom_random, th_random32(gen))
TH_LOCKED_DRAW(uint64_t, THRandom_random64, th_random64(gen))
TH_LOCKED_DRAW(double, THRandom_uniform, th_uniform_double(gen))
TH_LOCKED_DRAW(double, THRandom_normal, th_normal(gen))
