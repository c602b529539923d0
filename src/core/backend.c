/* The backend table: filled once, on first use, with the CPU backend. */
#include <pthread.h>

#include "backend.h"

static bf_backend bf_the_backend;
static pthread_once_t bf_backend_once = PTHREAD_ONCE_INIT;

static void backend_init(void) { bf_backend_cpu_fill(&bf_the_backend); }

const bf_backend *bf_backend_get(void) {
  pthread_once(&bf_backend_once, backend_init);
  return &bf_the_backend;
}
