#include "THNNConv.h"

#include <pthread.h>
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
