/*
 * thread_cache.c - the blocks a thread freed, kept for its next request; see
 * thread_cache.h.
 *
 * Small blocks: size classes are 8-byte steps of usable size. A freed block of
 * u usable bytes (malloc_usable_size) joins class u / 8, rounded down, so
 * every block of class k holds at least 8k bytes; a request of s bytes takes
 * from the class of the usable size glibc would give it,
 * max(24, ((s + 23) & ~15) - 8), which is at least s. Under glibc the two are
 * the same classes; under any other malloc (valgrind's, a preloaded one) a
 * block is only ever handed out for a request it holds.
 *
 * Large blocks: a few slots, each a block and its usable size; a request takes
 * the smallest block that holds it, and a freed block takes an empty slot or
 * the place of the smallest kept block, if that is smaller. An answer's
 * buffer grows by doubling from 1 KB (a Query or Scan page asks for its room
 * at once: 32 KB for a Query of 50 chat items), so a thread that answered
 * such a request keeps its buffer for the next.
 *
 * Each thread's cache is thread-local; a pthread key's destructor frees it
 * when the thread exits (the server's workers stop with the emulator, which
 * libddbemu may start again).
 */
#include "storage/base/thread_cache.h"

#include "storage/base/alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define THREAD_CACHE_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define THREAD_CACHE_ON 0
#endif
#endif
#if !defined(THREAD_CACHE_ON) && defined(__GLIBC__)
#define THREAD_CACHE_ON 1
#endif
#if !defined(THREAD_CACHE_ON)
#define THREAD_CACHE_ON 0
#endif

#if THREAD_CACHE_ON
#include <malloc.h>
#include <pthread.h>

#define SMALL_CLASSES 32                 /* usable sizes up to 255 bytes */
#define SMALL_BUDGET  (2u * 1024 * 1024) /* bytes per thread at most (8k a block of class k) */
#define LARGE_MIN     1000u /* the smallest usable size glibc serves as a large chunk, about */
#define LARGE_MAX     (64u * 1024)
#define LARGE_SLOTS   8
#define LARGE_BUDGET  (256u * 1024)

/* A freed small block, reused as a link of its class's list. */
struct free_block {
    struct free_block *next;
};

struct large_slot {
    void *block; /* NULL: an empty slot */
    size_t usable;
};

struct cache {
    struct free_block *small[SMALL_CLASSES];
    size_t small_bytes; /* 8k for each block of class k held */
    struct large_slot large[LARGE_SLOTS];
    size_t large_bytes;
    bool registered; /* the key's destructor will flush it */
};

static _Thread_local struct cache thread_cache;
static pthread_key_t cache_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static bool key_made;

/* The key's destructor: frees the exiting thread's cached blocks. */
static void flush_cache(void *arg)
{
    struct cache *c = arg;

    for (size_t k = 0; k < SMALL_CLASSES; k++) {
        while (c->small[k]) {
            struct free_block *b = c->small[k];
            c->small[k] = b->next;
            free(b);
        }
    }
    for (size_t i = 0; i < LARGE_SLOTS; i++)
        free(c->large[i].block);
    memset(c, 0, sizeof *c);
}

static void make_key(void)
{
    key_made = pthread_key_create(&cache_key, flush_cache) == 0;
}

/* Whether the thread's cache will be flushed at its exit (caching only then). */
static bool registered(struct cache *c)
{
    if (c->registered) return true;
    pthread_once(&key_once, make_key);
    /* Any non-NULL value makes the destructor run at the thread's exit. */
    if (!key_made || pthread_setspecific(cache_key, c) != 0) return false;
    c->registered = true;
    return true;
}

/* When the library is unloaded (dlclose) or the process exits: the key's
 * destructor, which would point into unloaded code, is removed (the other
 * threads' caches are then left to the process's end). */
__attribute__((destructor)) static void forget_key(void)
{
    if (key_made) pthread_key_delete(cache_key);
    key_made = false;
}

/* The small class a request of size bytes takes from (see the file comment). */
static size_t small_class_of_request(size_t size)
{
    size_t usable = ((size + 8 + 15) & ~(size_t) 15) - 8;
    return (usable < 24 ? 24 : usable) / 8;
}

static void *take_large(struct cache *c, size_t size)
{
    struct large_slot *best = NULL;

    for (size_t i = 0; i < LARGE_SLOTS; i++) {
        struct large_slot *s = &c->large[i];
        if (s->block && s->usable >= size && (!best || s->usable < best->usable)) best = s;
    }
    if (!best) return NULL;
    void *p = best->block;
    c->large_bytes -= best->usable;
    best->block = NULL;
    return p;
}

/*
 * Keeps a freed large block in an empty slot or, when all are taken, in
 * place of the smallest kept block if that is smaller (which is freed): a
 * request's many blocks of about 1 KB must not take every slot from its
 * answer's buffer, which would then be malloc'ed anew for each request -
 * a 32 KB malloc that makes glibc consolidate its fast bins
 * (bench/README.md, "The answer's buffer kept").
 */
static bool keep_large(struct cache *c, void *p, size_t usable)
{
    struct large_slot *smallest = NULL;

    for (size_t i = 0; i < LARGE_SLOTS; i++) {
        struct large_slot *s = &c->large[i];
        if (!s->block) {
            smallest = s;
            break;
        }
        if (!smallest || s->usable < smallest->usable) smallest = s;
    }
    if (smallest->block) {
        if (smallest->usable >= usable) return false;
        if (c->large_bytes - smallest->usable + usable > LARGE_BUDGET) return false;
        free(smallest->block);
        c->large_bytes -= smallest->usable;
    } else if (c->large_bytes + usable > LARGE_BUDGET) {
        return false;
    }
    *smallest = (struct large_slot){p, usable};
    c->large_bytes += usable;
    return true;
}

void *thread_cache_malloc(size_t size)
{
    struct cache *c = &thread_cache;
    void *p = NULL;

    if (size < SMALL_CLASSES * 8) {
        size_t k = small_class_of_request(size);
        struct free_block *b = k < SMALL_CLASSES ? c->small[k] : NULL;
        if (b) {
            c->small[k] = b->next;
            c->small_bytes -= k * 8;
            return b;
        }
    } else if (size >= LARGE_MIN && size <= LARGE_MAX) {
        p = take_large(c, size); /* a medium request would take a large block for little */
    }
    return p ? p : malloc(size);
}

void thread_cache_free(void *p)
{
    struct cache *c = &thread_cache;
    size_t usable, k;

    if (!p) return;
    usable = malloc_usable_size(p);
    if (usable >= LARGE_MIN && usable <= LARGE_MAX) {
        if (!registered(c) || !keep_large(c, p, usable)) free(p);
        return;
    }
    k = usable / 8;
    if (k < 3 || k >= SMALL_CLASSES || c->small_bytes + k * 8 > SMALL_BUDGET || !registered(c)) {
        free(p);
        return;
    }
    struct free_block *b = p;
    b->next = c->small[k];
    c->small[k] = b;
    c->small_bytes += k * 8;
}

void *thread_cache_grow(void *p, size_t used, size_t size)
{
    void *q;

    if (p && malloc_usable_size(p) >= size) return p;
    /* A block too large to keep: realloc may grow it in place (or, once
     * mmapped, by moving its pages rather than its bytes - a Scan's 1 MB
     * page grows through six doublings). */
    if (size > LARGE_MAX) return xrealloc(p, size);
    q = thread_cache_alloc(size);
    if (used) memcpy(q, p, used);
    thread_cache_free(p);
    return q;
}

bool thread_cache_keeps_blocks(void)
{
    return true;
}
#else
void *thread_cache_malloc(size_t size)
{
    return malloc(size);
}

void thread_cache_free(void *p)
{
    free(p);
}

void *thread_cache_grow(void *p, size_t used, size_t size)
{
    (void) used;
    return xrealloc(p, size);
}

bool thread_cache_keeps_blocks(void)
{
    return false;
}
#endif

void *thread_cache_alloc(size_t size)
{
    void *p = thread_cache_malloc(size);
    return p ? p : xmalloc(size); /* which reports and aborts as everywhere */
}
