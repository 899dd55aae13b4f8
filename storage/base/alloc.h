/*
 * alloc.h - allocation that never returns NULL.
 *
 * Out of memory is not a request error DynamoDB could report, so, as Redis's
 * zmalloc does, these abort instead of making every caller handle ENOMEM.
 */
#ifndef DDB_ALLOC_H
#define DDB_ALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* xstrdup, or NULL for NULL: for optional strings. */
char *xstrdup_or_null(const char *s);
/* Copies len bytes and appends a NUL that is not counted in len. */
char *xmemdup(const void *data, size_t len);

#endif
