/*
 * json_alloc.c - the per-thread cache of freed jansson blocks; see json_alloc.h.
 *
 * Size classes are glibc's chunk sizes (16-byte steps): a request of s bytes
 * gets a chunk of max(32, (s + 8 + 15) & ~15) bytes whose usable size is the
 * chunk less 8, so a cached block of the class computed for s holds s bytes,
 * and a freed block's class is (usable + 8) / 16. Blocks of the largest class
 * and up, and blocks over the thread's byte budget, go straight to free().
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

#define CLASS_COUNT  17                 /* chunks of 32 .. 256 bytes: classes 2 .. 16 */
#define BUDGET_BYTES (2u * 1024 * 1024) /* cached bytes per thread at most */

/* A freed block, reused as a link of its class's list. */
struct free_block {
    struct free_block *next;
};

struct cache {
    struct free_block *lists[CLASS_COUNT];
    size_t bytes;    /* usable bytes held, all classes */
    bool registered; /* the key's destructor will flush it */
};

static _Thread_local struct cache thread_cache;
static pthread_key_t cache_key;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static size_t class_of_request(size_t size)
{
    size_t chunk = (size + 8 + 15) & ~(size_t) 15;
    return (chunk < 32 ? 32 : chunk) / 16;
}

static void *cached_malloc(size_t size)
{
    struct cache *c = &thread_cache;
    size_t k = class_of_request(size);
    struct free_block *b;

    if (k >= CLASS_COUNT || !(b = c->lists[k])) return malloc(size);
    c->lists[k] = b->next;
    c->bytes -= k * 16 - 8;
    return b;
}

static void cached_free(void *p)
{
    struct cache *c = &thread_cache;
    size_t usable, k;
    struct free_block *b = p;

    if (!p) return;
    usable = malloc_usable_size(p);
    k = (usable + 8) / 16;
    if (k >= CLASS_COUNT || c->bytes + usable > BUDGET_BYTES) {
        free(p);
        return;
    }
    if (!c->registered) {
        /* Any non-NULL value makes the destructor run at the thread's exit. */
        pthread_setspecific(cache_key, c);
        c->registered = true;
    }
    /* usable is exactly k * 16 - 8 for a chunk of class k. */
    b->next = c->lists[k];
    c->lists[k] = b;
    c->bytes += usable;
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
#else
void json_alloc_install(void)
{
}
#endif
