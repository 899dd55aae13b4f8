/*
 * json_alloc.h - jansson's allocations served from the thread's cache of
 * freed blocks (storage/base/thread_cache.h).
 *
 * A request's tree (json_in.c) is ~1,400 small allocations for a
 * BatchGetItem of 100 keys, all freed together when the request ends: with
 * glibc alone, malloc and free were 29-31% of a batch's instructions
 * (bench/README.md "Request path at 1,000,000 items"). Installed once; left
 * alone when the program (libddbemu's host) gave jansson its own allocator.
 */
#ifndef DDB_JSON_ALLOC_H
#define DDB_JSON_ALLOC_H

/* Gives jansson the cached allocator (once, any thread; see above). */
void json_alloc_install(void);

#endif
