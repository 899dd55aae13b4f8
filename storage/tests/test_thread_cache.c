/*
 * test_thread_cache.c - the blocks a thread frees, kept for its next request
 * (storage/base/thread_cache.c).
 */
#include "storage/base/thread_cache.h"
#include "storage/tests/check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A large block freed is the next large allocation it holds; a smaller
 * request takes the smallest block that holds it. */
static void test_large_blocks_come_back(void)
{
    char *a = thread_cache_alloc(4000), *b = thread_cache_alloc(16000), *c;

    memset(a, 'a', 4000);
    memset(b, 'b', 16000);
    thread_cache_free(a);
    thread_cache_free(b);
    c = thread_cache_alloc(3000);
    if (thread_cache_keeps_blocks()) CHECK(c == a);
    thread_cache_free(c);
    c = thread_cache_alloc(9000);
    if (thread_cache_keeps_blocks()) CHECK(c == b);
    thread_cache_free(c);
    /* Larger than any block kept: a new one. */
    c = thread_cache_alloc(40000);
    CHECK(c != a && c != b);
    thread_cache_free(c);
}

/* With every slot taken by small large blocks, a larger one freed takes
 * the smallest one's place: an answer's buffer stays kept however many
 * blocks of about 1 KB a request freed before it. */
static void test_larger_block_takes_the_smallest_slot(void)
{
    void *small[12];
    char *answer = thread_cache_alloc(32768), *again;

    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        small[i] = thread_cache_alloc(1000);
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        thread_cache_free(small[i]);
    thread_cache_free(answer);
    /* A block freed to glibc would be this one. */
    void *grab = malloc(32768);
    again = thread_cache_alloc(30000);
    if (thread_cache_keeps_blocks()) CHECK(again == answer);
    thread_cache_free(again);
    free(grab);
}

/* Small blocks come back by size class, last freed first. */
static void test_small_blocks_come_back_by_class(void)
{
    void *x = thread_cache_malloc(40), *y = thread_cache_malloc(40), *z;

    CHECK(x && y);
    thread_cache_free(x);
    thread_cache_free(y);
    z = thread_cache_malloc(36);
    if (thread_cache_keeps_blocks()) CHECK(z == y);
    thread_cache_free(z);
}

/* Growing keeps the bytes written, from any block: a cached one, a plain
 * malloc block, or none. */
static void test_grow_keeps_the_bytes(void)
{
    char *p = thread_cache_grow(NULL, 0, 1500);

    for (int i = 0; i < 1500; i++)
        p[i] = (char) (i * 7);
    p = thread_cache_grow(p, 1500, 5000);
    for (int i = 0; i < 1500; i++)
        CHECK(p[i] == (char) (i * 7));
    thread_cache_free(p);

    p = malloc(2000);
    memset(p, 'q', 2000);
    p = thread_cache_grow(p, 2000, 70000); /* past the largest size kept */
    CHECK(p[0] == 'q' && p[1999] == 'q');
    thread_cache_free(p);
}

/* Any block of the cache may be passed to free(), and any malloc block to
 * thread_cache_free: blocks freed on one thread may be kept by another. */
static void *free_on_another_thread(void *arg)
{
    void **blocks = arg;
    for (int i = 0; blocks[i]; i++)
        thread_cache_free(blocks[i]);
    /* Kept by this thread, then freed by its exit (the key's destructor). */
    return NULL;
}

static void test_blocks_cross_threads(void)
{
    void *blocks[] = {malloc(100), thread_cache_alloc(3000), thread_cache_malloc(24), malloc(50000),
                      NULL};
    pthread_t t;
    void *mine = thread_cache_alloc(2048);

    CHECK(pthread_create(&t, NULL, free_on_another_thread, blocks) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    free(mine);
}

int main(void)
{
    RUN(test_large_blocks_come_back);
    RUN(test_larger_block_takes_the_smallest_slot);
    RUN(test_small_blocks_come_back_by_class);
    RUN(test_grow_keeps_the_bytes);
    RUN(test_blocks_cross_threads);
    return check_report();
}
