/* The C cost of small results: ns per call of a 10-element float32 op plus the free
 * of its result, on a built pyth core loaded with dlopen (no Python in the loop).
 *
 *   gcc -O2 -o /tmp/small_results benchmarks/small_results.c -ldl \
 *       -Wl,--no-as-needed -lpython3.11 -L"$(python -c 'import sysconfig; print(sysconfig.get_config_var("LIBDIR"))')"
 *   LD_LIBRARY_PATH=<that LIBDIR> \
 *   LD_PRELOAD=<site-packages>/scipy_openblas32/lib/libscipy_openblas.so:<libgomp.so.1> \
 *       /tmp/small_results pyth/_th.abi3.so [caching 0|1 (1)] [struct cache limit]
 *
 * Medians (and minima) of 7 rounds of 10^6 calls each. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void *(*NewWithSize)(int, const int64_t *);
typedef void *(*Unary)(void *);
typedef void *(*Binary)(void *, void *);
typedef void *(*BinaryScalar)(void *, float);
typedef void (*Free)(void *);
typedef int (*IntFn)(int);
typedef int (*Fill)(void *, float);

enum { ROUNDS = 7, CALLS = 1000000, CASES = 5 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "missing symbol %s\n", name);
    exit(1);
  }
  return p;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "pyth/_th.abi3.so";
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  ((IntFn)sym(lib, "THAllocator_useCaching"))(argc > 2 ? atoi(argv[2]) : 1);
  if (argc > 3) ((IntFn)sym(lib, "THStructCache_setLimit"))(atoi(argv[3]));
  NewWithSize new_with_size = (NewWithSize)sym(lib, "THFloatTensor_newWithSize");
  Binary add = (Binary)sym(lib, "THFloatTensor_addNew");
  BinaryScalar add_scalar = (BinaryScalar)sym(lib, "THFloatTensor_addScalarNew");
  Unary tanh_new = (Unary)sym(lib, "THFloatTensor_tanhNew");
  Unary new_with_tensor = (Unary)sym(lib, "THFloatTensor_newWithTensor");
  Free free_tensor = (Free)sym(lib, "THFloatTensor_free");
  Fill fill = (Fill)sym(lib, "THFloatTensor_fill");

  const int64_t size[1] = {10};
  void *a = new_with_size(1, size), *b = new_with_size(1, size);
  fill(a, 0.5f);
  fill(b, 2.0f);
  const char *names[CASES] = {"addNew+free", "addScalarNew+free", "tanhNew+free",
                              "newWithSize+free", "newWithTensor+free"};
  double t[CASES][ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    for (int c = 0; c < CASES; c++) {
      double t0 = now();
      for (int i = 0; i < CALLS; i++) {
        void *x = c == 0   ? add(a, b)
                  : c == 1 ? add_scalar(a, 3.0f)
                  : c == 2 ? tanh_new(a)
                  : c == 3 ? new_with_size(1, size)
                           : new_with_tensor(a);
        free_tensor(x);
      }
      t[c][r] = (now() - t0) / CALLS * 1e9;
    }
  }
  printf("%s, ns per call (median, min of %d x %d):\n", path, ROUNDS, CALLS);
  for (int c = 0; c < CASES; c++) {
    qsort(t[c], ROUNDS, sizeof(double), ascending);
    printf("  %-20s %7.1f  %7.1f\n", names[c], t[c][ROUNDS / 2], t[c][0]);
  }
  free_tensor(a);
  free_tensor(b);
  return 0;
}
