/*
 * vector_search.c - the exact vector search against the memory it reads.
 *
 * Builds one vector index group of N vectors of D dimensions (default
 * 100,000 x 1,024: 400 MB of 32-bit floats, laid out as the index keeps
 * them), then times, in the same run and alternately, (a) a plain
 * single-threaded dot-product pass over the same floats and (b) the index's
 * search (vector_index_search, TopK 10, COSINE), and prints the best time of
 * each and their ratio (target: at most 1.3, bench/README.md "Vector
 * search"). The items behind the vectors are one shared item, so only the
 * vectors take memory. `--smoke` runs a small size once and checks that the
 * search finds a planted vector (ctest runs it; timing is never asserted).
 *
 * Usage: vector_search [--smoke] [--count N] [--dims D] [--rounds R]
 */
#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/table/vector_distance.h"
#include "storage/table/vector_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* The reference: one pass of float dot products over the same memory, in
 * sixteen float lanes so that the compiler vectorizes it (a single running
 * sum would be bound by the latency of its additions, not by memory). */
static double plain_pass(const float *restrict v, const float *restrict q, size_t count,
                         size_t dims)
{
    double best = -1e300;
    for (size_t i = 0; i < count; i++) {
        float acc[16] = {0}, s = 0;
        const float *row = v + i * dims;
        size_t j = 0;
        for (; j + 16 <= dims; j += 16) {
            for (size_t k = 0; k < 16; k++)
                acc[k] += row[j + k] * q[j + k];
        }
        for (; j < dims; j++)
            s += row[j] * q[j];
        for (size_t k = 0; k < 16; k++)
            s += acc[k];
        if (s > best) best = s;
    }
    return best;
}

static struct item *shared_item(void)
{
    struct value attrs, pk;
    value_init_map(&attrs);
    value_init_string(&pk, "k", 1);
    value_map_set(&attrs, "pk", 2, &pk);
    return item_new(&attrs);
}

/* One group of count random vectors (vector planted at `planted` equals q). */
static void fill(struct vector_index *vi, const float *q, size_t count, size_t planted)
{
    struct vector_group *g = xcalloc(1, sizeof *g);
    struct item *item = shared_item();
    unsigned seed = 12345;

    value_init_null(&g->hash);
    g->vectors = xmalloc(sizeof *g->vectors * count * vi->dims);
    g->self_dots = xmalloc(sizeof *g->self_dots * count);
    g->items = xmalloc(sizeof *g->items * count);
    for (size_t i = 0; i < count; i++) {
        float *row = g->vectors + i * vi->dims;
        for (size_t j = 0; j < vi->dims; j++) {
            seed = seed * 1103515245u + 12345u;
            row[j] = i == planted ? q[j] : (float) ((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
        }
        g->self_dots[i] = vector_dot(row, row, vi->dims);
        g->items[i] = item_ref(item);
    }
    g->count = g->cap = count;
    vi->groups = xmalloc(sizeof *vi->groups);
    vi->groups[0] = g;
    vi->group_count = 1;
    vi->item_count = count;
    item_unref(item);
}

int main(int argc, char **argv)
{
    size_t count = 100000, dims = 1024, rounds = 7;
    bool smoke = false;
    struct vector_index_def def = {
        .name = "bench", .attribute = "emb", .distance = DISTANCE_COSINE};
    struct table_def table = {0};
    struct key_schema key = {.hash_count = 1, .hash_names = {"pk"}};
    struct vector_index vi;
    double best_plain = 1e9, best_search = 1e9, sink = 0;
    float *q;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0) smoke = true;
        if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) count = strtoul(argv[++i], NULL, 10);
        if (strcmp(argv[i], "--dims") == 0 && i + 1 < argc) dims = strtoul(argv[++i], NULL, 10);
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = strtoul(argv[++i], NULL, 10);
    }
    if (smoke) {
        count = 2000;
        dims = 64;
        rounds = 1;
    }
    def.dimensions = (int64_t) dims;
    q = xmalloc(sizeof *q * dims);
    for (size_t j = 0; j < dims; j++)
        q[j] = (float) (j % 7) / 7.0f - 0.4f;
    lock_check_acquired(LOCK_HOLD_EXCLUSIVE);
    vector_index_init(&vi, &def, &table);
    fill(&vi, q, count, count / 3);
    for (size_t r = 0; r < rounds; r++) {
        struct vector_query query = {.vector = q, .top_k = 10, .table_key = &key};
        struct vector_hit *hits;
        size_t n;
        double t0 = now_s(), t1, t2;
        sink += plain_pass(vi.groups[0]->vectors, q, count, dims);
        t1 = now_s();
        vector_index_search(&vi, &query, &hits, &n);
        t2 = now_s();
        if (t1 - t0 < best_plain) best_plain = t1 - t0;
        if (t2 - t1 < best_search) best_search = t2 - t1;
        if (n != 10 || hits[0].score != 0.0) rc = 1; /* the planted vector comes first */
        for (size_t i = 0; i < n; i++)
            item_unref(hits[i].item);
        free(hits);
    }
    printf("vectors %zu x %zu dims (%.0f MB), TopK 10, COSINE, best of %zu\n", count, dims,
           (double) count * (double) dims * 4 / 1e6, rounds);
    printf("plain dot-product pass: %.2f ms (%.1f GB/s)\n", best_plain * 1e3,
           (double) count * (double) dims * 4 / best_plain / 1e9);
    printf("vector_index_search:    %.2f ms (%.1f GB/s)\n", best_search * 1e3,
           (double) count * (double) dims * 4 / best_search / 1e9);
    printf("ratio: %.2f%s\n", best_search / best_plain, rc ? "  (WRONG ANSWER)" : "");
    vector_index_clear(&vi);
    lock_check_released();
    free(q);
    return rc || sink == 12345.678;
}
