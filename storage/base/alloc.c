/*
 * alloc.c - abort-on-OOM wrappers; see alloc.h.
 */
#include "storage/base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

static void die_out_of_memory(size_t size)
{
    fprintf(stderr, "ddbemu: out of memory allocating %zu bytes\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) die_out_of_memory(size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) die_out_of_memory(count * size);
    return p;
}

/*
 * Small blocks grow by malloc, copy and free rather than by realloc. glibc's
 * realloc locks the arena the block came from, even when it was only resized
 * in place; and a thread's small blocks often come from other threads'
 * arenas, since its tcache hands out whatever it freed - an item another
 * thread stored, a heat map key. Two threads that each grow their request's
 * maps then queue on one arena's lock at every request (bench/README.md,
 * "Writers of different tables": 0.7-1.8x for two writers with realloc,
 * 1.7-1.8x without). malloc and free of a tcache-sized block take no lock.
 * Large blocks keep realloc: they bypass the tcache, and growing one in
 * place saves a copy worth more than the lock.
 */
#define GROW_BY_COPY_MAX 1024 /* glibc's largest tcache size is 1,032 bytes */

void *xrealloc(void *ptr, size_t size)
{
#ifdef __GLIBC__
    if (ptr && size && size <= GROW_BY_COPY_MAX) {
        size_t old = malloc_usable_size(ptr);
        void *grown;
        if (old >= size) return ptr;
        grown = xmalloc(size);
        memcpy(grown, ptr, old);
        free(ptr);
        return grown;
    }
#endif
    void *p = realloc(ptr, size ? size : 1);
    if (!p) die_out_of_memory(size);
    return p;
}

void *xaligned_alloc(size_t align, size_t size)
{
    void *p = aligned_alloc(align, size);
    if (!p) die_out_of_memory(size);
    return p;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

char *xmemdup(const void *data, size_t len)
{
    char *p = xmalloc(len + 1);
    if (len) memcpy(p, data, len);
    p[len] = '\0';
    return p;
}

void mem_release_free(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
