/*
 * thread_cache.h - the blocks a thread freed, kept for its next request.
 *
 * A request allocates and frees the same blocks every time: jansson's tree
 * of the request (~1,400 small blocks for a BatchGetItem of 100 keys), the
 * answer's buffer, an expression's arena. glibc keeps only seven freed blocks
 * of a size in the thread's tcache; the rest go to its fastbins, and every
 * allocation of 1 KB or more (an answer's buffer) merges the fastbins back
 * into the heap (malloc_consolidate). On a table of a million items the next
 * request's blocks are then carved out of free chunks scattered between the
 * items, each a cache miss (bench/README.md, "Request path at 1,000,000
 * items" and "Large blocks from the thread's cache").
 *
 * Here each thread keeps what it frees, in two kinds:
 *  - small blocks (usable sizes 24-255 bytes) in 8-byte classes, up to a byte
 *    budget: jansson's allocations (api/wire/json_alloc.c), made and freed
 *    within one request, so close together in the heap (values' bytes, kept
 *    here too, pinned scattered pages: bench/README.md, "Values from the
 *    thread's cache: not kept");
 *  - large blocks (usable sizes 1,000 bytes to 64 KB), a handful: answers'
 *    buffers (json_out, the HTTP response) and expressions' arenas, so that a
 *    request allocates nothing of 1 KB or more from glibc.
 * Blocks of other sizes, and blocks over a kind's budget, go to free().
 *
 * The blocks are ordinary malloc blocks and a block's size is read back with
 * malloc_usable_size(), so any malloc block may be freed through the cache,
 * from any thread, and any cached block may be passed to free(). A thread's
 * exit frees what it kept. Under AddressSanitizer (whose use-after-free
 * checks the reuse would hide) and without glibc, the functions are malloc,
 * realloc and free.
 */
#ifndef DDB_THREAD_CACHE_H
#define DDB_THREAD_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* At least size bytes, or NULL when memory is exhausted (malloc's contract:
 * jansson's allocator). */
void *thread_cache_malloc(size_t size);
/* The same, aborting when memory is exhausted, as xmalloc. */
void *thread_cache_alloc(size_t size);
/* Keeps p for the calling thread's next allocations, or frees it; NULL is a no-op. */
void thread_cache_free(void *p);
/* A block of at least size bytes holding p's first used bytes; p (NULL or
 * from malloc or this cache) is given back to the cache. Aborts as xmalloc. */
void *thread_cache_grow(void *p, size_t used, size_t size);

/* Whether this build keeps blocks (false under AddressSanitizer and without
 * glibc, where the functions above are malloc's): for the tests. */
bool thread_cache_keeps_blocks(void);

#endif
