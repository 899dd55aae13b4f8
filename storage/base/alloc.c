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

void *xrealloc(void *ptr, size_t size)
{
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
