#include "THNNConv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "THGeneral.h"

/* One cached buffer per thread, found through a pthread key whose destructor frees it when the
 * thread ends (C11 _Thread_local has no destructor). */
typedef struct { void *p; size_t bytes; } THNNWorkspace;

static pthread_key_t ws_key;
static pthread_once_t ws_once = PTHREAD_ONCE_INIT;

static void ws_destroy(void *v) {
  THNNWorkspace *w = v;
  free(w->p);
  free(w);
}

static void ws_init(void) { pthread_key_create(&ws_key, ws_destroy); }

static void *ws_alloc(size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) p = NULL;
  if (!p) THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %zu bytes for the "
                      "convolution's workspace", bytes);
  return p;
}

void *THNN_workspaceTake(size_t bytes, int *owned) {
  *owned = 1;
  if (bytes > TH_NN_WORKSPACE_CAP) return ws_alloc(bytes);
  pthread_once(&ws_once, ws_init);
  THNNWorkspace *w = pthread_getspecific(ws_key);
  if (!w) {
    w = calloc(1, sizeof *w);
    if (!w || pthread_setspecific(ws_key, w) != 0) {
      free(w);
      return ws_alloc(bytes);
    }
  }
  if (w->bytes < bytes) {
    void *p = ws_alloc(bytes);
    if (!p) return NULL;
    free(w->p);
    w->p = p;
    w->bytes = bytes;
  }
  *owned = 0;
  return w->p;
}

void THNN_workspaceGive(void *p, int owned) {
  if (owned) free(p);
}

const char *THNN_convSizeStr(char *buf, size_t len, int nd, const int64_t v[3]) {
  if (nd == 3)
    snprintf(buf, len, "%lld x %lld x %lld", (long long)v[0], (long long)v[1], (long long)v[2]);
  else
    snprintf(buf, len, "%lld x %lld", (long long)v[1], (long long)v[2]);
  return buf;
}

void THNN_convOutPadError(int nd, const int64_t outPad[3], const int64_t stride[3],
                          const int64_t dilation[3]) {
  static const char *const what[3] = {"output_padding", "stride", "dilation"};
  static const char *const dim[3] = {"depth", "height", "width"};
  const int64_t *v[3] = {outPad, stride, dilation};
  char msg[512];
  size_t n = (size_t)snprintf(msg, sizeof msg, "output padding must be smaller than either "
                              "stride or dilation, but got");
  for (int w = 0; w < 3; w++)
    for (int d = 3 - nd; d < 3 && n < sizeof msg; d++)
      n += (size_t)snprintf(msg + n, sizeof msg - n, " %s_%s: %lld", what[w], dim[d],
                            (long long)v[w][d]);
  THError_set(TH_ERR_RUNTIME, "%s", msg);
}
