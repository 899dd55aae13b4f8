/*
 * json_alloc.c - jansson's allocations from the thread's cache; see
 * json_alloc.h.
 */
#include "api/wire/json_alloc.h"

#include "storage/base/thread_cache.h"

#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void install(void)
{
    json_malloc_t current_malloc;
    json_free_t current_free;

    json_get_alloc_funcs(&current_malloc, &current_free);
    if (current_malloc != malloc || current_free != free) return; /* the host's own */
    json_set_alloc_funcs(thread_cache_malloc, thread_cache_free);
}

void json_alloc_install(void)
{
    pthread_once(&install_once, install);
}

/* When the library is unloaded (dlclose) or the process exits: jansson gets
 * malloc and free back. The cached blocks are plain malloc blocks, so either
 * pair frees any block. */
__attribute__((destructor)) static void uninstall(void)
{
    json_malloc_t current_malloc;
    json_free_t current_free;

    json_get_alloc_funcs(&current_malloc, &current_free);
    if (current_malloc != thread_cache_malloc) return;
    json_set_alloc_funcs(malloc, free);
}
