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
/* size bytes aligned to align (a power of two dividing size), freed with free(). */
void *xaligned_alloc(size_t align, size_t size);
char *xstrdup(const char *s);
/* xstrdup, or NULL for NULL: for optional strings. */
char *xstrdup_or_null(const char *s);
/* Copies len bytes and appends a NUL that is not counted in len. */
char *xmemdup(const void *data, size_t len);
/* Gives the free pages of every malloc arena back to the system (glibc's
 * malloc_trim; nothing elsewhere). glibc returns only the free space at the
 * top of a heap by itself, so after a large table is freed its pages would
 * stay in RSS, held between live blocks. Costs a walk of the free chunks (a
 * few ms after 1 GB was freed): call it after large frees, never under a lock
 * other requests wait for. */
void mem_release_free(void);

#endif
