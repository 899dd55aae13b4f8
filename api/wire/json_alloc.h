/*
 * json_alloc.h - jansson's allocations served from a per-thread cache of
 * freed blocks.
 *
 * A request's tree (json_in.c) is ~1,400 small allocations for a
 * BatchGetItem of 100 keys, all freed together when the request ends. glibc's
 * per-thread cache keeps only seven blocks of a size; the rest go to its
 * fastbins, which the next large allocation (the next request's body buffer)
 * merges back into the heap, and the next tree is carved out of the heap
 * again: malloc and free were 29-31% of a batch's instructions
 * (bench/README.md "Request path at 1,000,000 items"). Here each thread keeps
 * freed small blocks by size, up to a byte budget, and hands them back to the
 * next tree.
 *
 * The blocks are ordinary malloc blocks, and a block's size class is read back
 * with malloc_usable_size(), so a value allocated before the cache was
 * installed, or on another thread, is freed correctly through it, and a
 * cached block may be passed to free() by anyone. Installed once; left alone
 * when the program (libddbemu's host) gave jansson its own allocator, and not
 * at all under AddressSanitizer (whose use-after-free checks the reuse would
 * hide) or without glibc.
 */
#ifndef DDB_JSON_ALLOC_H
#define DDB_JSON_ALLOC_H

/* Gives jansson the cached allocator (once, any thread; see above). */
void json_alloc_install(void);

#endif
