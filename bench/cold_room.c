/*
 * cold_room.c - what reading one room's bytes costs when no cache holds
 * them (bench/README.md, "Query at 1M over 10k: the floor of a cold room").
 *
 * A Query of 50 chat items reads about 14 KB of items. On a table of 10,000
 * items (2.8 MB) those bytes stay in the last-level cache; on a table of
 * 1,000,000 (280 MB) a random room's are in memory. This reads blocks of
 * that size at random from a small region and from a large one, line by
 * line as the answer's writer does, and prints the time a block of each and
 * the difference: the least a Query of a cold room pays over a warm one for
 * its items alone, before the nodes and the key search it also misses.
 *
 *   cold_room [--block 14336] [--small-mb 3] [--large-mb 300] [--reads 200000] [--smoke]
 *
 * Run it pinned to a core (taskset -c 1) with nothing else running; it
 * prints the median of five passes of each. --smoke does one short pass
 * and checks only that it ran.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PASSES 5

struct options {
    size_t block;
    size_t small_mb;
    size_t large_mb;
    long reads;
};

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e9 + (double) t.tv_nsec;
}

/* Nanoseconds a block, reading opt->reads random blocks of region (n blocks). */
static double pass(const char *region, size_t n, const struct options *opt, uint64_t *sink)
{
    uint64_t x = 88172645463325252ULL, sum = 0;
    double t0 = now_ns();

    for (long r = 0; r < opt->reads; r++) {
        const char *p;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p = region + (x % n) * opt->block;
        for (size_t off = 0; off < opt->block; off += 64)
            sum += *(const volatile uint64_t *) (p + off);
    }
    *sink += sum;
    return (now_ns() - t0) / (double) opt->reads;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return (x > y) - (x < y);
}

/* The median of PASSES passes over a region of mb megabytes. */
static double median_ns(size_t mb, const struct options *opt, uint64_t *sink)
{
    size_t bytes = mb << 20, n = bytes / opt->block;
    char *region = malloc(bytes);
    double t[PASSES];

    if (!region || n == 0) {
        fprintf(stderr, "cold_room: cannot have %zu MB in blocks of %zu bytes\n", mb, opt->block);
        exit(1);
    }
    memset(region, 1, bytes); /* every page present before the clock starts */
    for (int i = 0; i < PASSES; i++)
        t[i] = pass(region, n, opt, sink);
    free(region);
    qsort(t, PASSES, sizeof t[0], compare_double);
    return t[PASSES / 2];
}

static size_t parse_size(const char *flag, const char *value)
{
    char *end;
    unsigned long long v = strtoull(value, &end, 10);

    if (*value == '\0' || *end != '\0' || v == 0) {
        fprintf(stderr, "cold_room: %s: not a positive number: '%s'\n", flag, value);
        exit(2);
    }
    return (size_t) v;
}

int main(int argc, char **argv)
{
    struct options opt = {14336, 3, 300, 200000};
    uint64_t sink = 0;
    double warm, cold;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (strcmp(a, "--smoke") == 0) {
            opt.large_mb = 16;
            opt.reads = 1000;
        } else if (i + 1 < argc && strcmp(a, "--block") == 0) {
            opt.block = parse_size(a, argv[++i]);
        } else if (i + 1 < argc && strcmp(a, "--small-mb") == 0) {
            opt.small_mb = parse_size(a, argv[++i]);
        } else if (i + 1 < argc && strcmp(a, "--large-mb") == 0) {
            opt.large_mb = parse_size(a, argv[++i]);
        } else if (i + 1 < argc && strcmp(a, "--reads") == 0) {
            opt.reads = (long) parse_size(a, argv[++i]);
        } else {
            fprintf(stderr, "usage: cold_room [--block B] [--small-mb M] [--large-mb M] "
                            "[--reads N] [--smoke]\n");
            return 2;
        }
    }
    warm = median_ns(opt.small_mb, &opt, &sink);
    cold = median_ns(opt.large_mb, &opt, &sink);
    printf("block %zu bytes: %.2f us from %zu MB, %.2f us from %zu MB, cold - warm %.2f us "
           "(median of %d passes; %d)\n",
           opt.block, warm / 1000, opt.small_mb, cold / 1000, opt.large_mb, (cold - warm) / 1000,
           PASSES, (int) (sink & 1));
    return 0;
}
