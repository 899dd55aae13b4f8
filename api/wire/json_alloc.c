/*
 * json_alloc.c - the per-thread cache of freed jansson blocks; see json_alloc.h.
 *
 * Size classes are 8-byte steps of usable size. A freed block of u usable
 * bytes (malloc_usable_size) joins class u / 8, rounded down, so every block
 * of class k holds at least 8k bytes; a request of s bytes takes from the
 * class of the usable size glibc would give it, max(24, ((s + 23) & ~15) - 8),
 * which is at least s. Under glibc the two are the same classes; under any
 * other malloc (valgrind's, a preloaded one) a block is only ever handed out
 * for a request it holds. Blocks of class CLASS_COUNT and up, and blocks over
 * the thread's byte budget, go straight to free().
 *
 * Each thread's cache is thread-local; a pthread key's destructor frees it
 * when the thread exits (the server's workers stop with the emulator, which
 * libddbemu may start again).
 */
#include "api/wire/json_alloc.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#if defined(__SANITIZE_ADDRESS__)
#define JSON_ALLOC_CACHED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JSON_ALLOC_CACHED 0
#endif
#endif
#if !defined(JSON_ALLOC_CACHED) && defined(__GLIBC__)
#define JSON_ALLOC_CACHED 1
#endif
#if !defined(JSON_ALLOC_CACHED)
#define JSON_ALLOC_CACHED 0
#endif

#if JSON_ALLOC_CACHED
#include <malloc.h>

#define CLASS_COUNT 32 /* usable sizes up to 255 bytes */
#define BUDGET_BYTES                                                                               \
    (2u * 1024 * 1024) /* cached bytes per thread at most (8k a block of class k) */

/* A freed block, reused as a link of its class's list. */
struct free_block {
    struct free_block *next;
};

struct cache {
    struct free_block *lists[CLASS_COUNT];
    size_t bytes;    /* 8k for each block of class k held */
    bool registered; /* the key's destructor will flush it */
};

static _Thread_local struct cache thread_cache;
static pthread_key_t cache_key;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/* The class a request of size bytes takes from (see the file comment). */
static size_t class_of_request(size_t size)
{
    size_t usable = ((size + 8 + 15) & ~(size_t) 15) - 8;
    return (usable < 24 ? 24 : usable) / 8;
}

static void *cached_malloc(size_t size)
{
    struct cache *c = &thread_cache;
    size_t k = size < CLASS_COUNT * 8 ? class_of_request(size) : CLASS_COUNT;
    struct free_block *b;

    if (k >= CLASS_COUNT || !(b = c->lists[k])) return malloc(size);
    c->lists[k] = b->next;
    c->bytes -= k * 8;
    return b;
}

static void cached_free(void *p)
{
    struct cache *c = &thread_cache;
    size_t k;
    struct free_block *b = p;

    if (!p) return;
    k = malloc_usable_size(p) / 8;
    if (k < 3 || k >= CLASS_COUNT || c->bytes + k * 8 > BUDGET_BYTES) {
        free(p);
        return;
    }
    if (!c->registered) {
        /* Any non-NULL value makes the destructor run at the thread's exit. */
        pthread_setspecific(cache_key, c);
        c->registered = true;
    }
    b->next = c->lists[k];
    c->lists[k] = b;
    c->bytes += k * 8;
}

/* The key's destructor: frees the exiting thread's cached blocks. */
static void flush_cache(void *arg)
{
    struct cache *c = arg;

    for (size_t k = 0; k < CLASS_COUNT; k++) {
        while (c->lists[k]) {
            struct free_block *b = c->lists[k];
            c->lists[k] = b->next;
            free(b);
        }
    }
    c->bytes = 0;
    c->registered = false;
}

static void install(void)
{
    json_malloc_t current_malloc;
    json_free_t current_free;

    json_get_alloc_funcs(&current_malloc, &current_free);
    if (current_malloc != malloc || current_free != free) return; /* the host's own */
    if (pthread_key_create(&cache_key, flush_cache) != 0) return;
    json_set_alloc_funcs(cached_malloc, cached_free);
}

void json_alloc_install(void)
{
    pthread_once(&install_once, install);
}

/* When the library is unloaded (dlclose) or the process exits: jansson gets
 * malloc and free back - the cached blocks are plain malloc blocks, so either
 * pair frees any block - and the key's destructor, which would point into
 * unloaded code, is removed (the other threads' caches are then left to the
 * process's end). */
__attribute__((destructor)) static void uninstall(void)
{
    json_malloc_t current_malloc;
    json_free_t current_free;

    json_get_alloc_funcs(&current_malloc, &current_free);
    if (current_malloc != cached_malloc) return;
    json_set_alloc_funcs(malloc, free);
    pthread_key_delete(cache_key);
}
#else
void json_alloc_install(void)
{
}
#endif
