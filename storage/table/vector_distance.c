/*
 * vector_distance.c - distance kernels and scores; see vector_distance.h.
 * Compiled with -O3 in every build type (storage/CMakeLists.txt).
 */
#include "storage/table/vector_distance.h"

#include <math.h>

#define LANES 8

/* Eight independent double accumulators: GCC turns the inner loop into
 * vector code (float -> double widening, multiply, add) without reassociating
 * a single sum, which it may not do without -ffast-math. The AVX2 clone is
 * chosen by an ifunc resolver, which runs while the program is relocated,
 * before a sanitizer's runtime is up: an instrumented resolver crashes there
 * (ThreadSanitizer: every binary died at start), so sanitized builds take
 * the default code alone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VECTOR_CLONES
#endif

static double fold(const double *acc, double tail)
{
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

VECTOR_CLONES
double vector_dot(const float *restrict a, const float *restrict b, size_t n)
{
    double acc[LANES] = {0};
    double tail = 0;
    size_t i = 0;

    for (; i + LANES <= n; i += LANES) {
        for (size_t j = 0; j < LANES; j++)
            acc[j] += (double) a[i + j] * (double) b[i + j];
    }
    for (; i < n; i++)
        tail += (double) a[i] * (double) b[i];
    return fold(acc, tail);
}

VECTOR_CLONES
double vector_sq_distance(const float *restrict a, const float *restrict b, size_t n)
{
    double acc[LANES] = {0};
    double tail = 0;
    size_t i = 0;

    for (; i + LANES <= n; i += LANES) {
        for (size_t j = 0; j < LANES; j++) {
            double d = (double) a[i + j] - (double) b[i + j];
            acc[j] += d * d;
        }
    }
    for (; i < n; i++) {
        double d = (double) a[i] - (double) b[i];
        tail += d * d;
    }
    return fold(acc, tail);
}

static double saturate(double s)
{
    if (isnan(s)) return 0;
    if (s > VECTOR_SCORE_MAX) return VECTOR_SCORE_MAX;
    if (s < -VECTOR_SCORE_MAX) return -VECTOR_SCORE_MAX;
    return s;
}

static double cosine(double dot, double qq, double vv)
{
    double s;
    /* A zero vector has no direction: 1.0, as for orthogonal vectors (spec-24 3.3). */
    if (qq == 0 || vv == 0) return 1.0;
    /* sqrt(x * x) == x in IEEE arithmetic, so a vector scores exactly 0 against itself. */
    s = 1.0 - dot / sqrt(qq * vv);
    if (s < 0) return 0;
    if (s > 2) return 2;
    return s;
}

double vector_score(enum distance_function f, const float *q, double qq, const float *v, double vv,
                    size_t n)
{
    switch (f) {
    case DISTANCE_COSINE: return cosine(vector_dot(q, v, n), qq, vv);
    case DISTANCE_EUCLIDEAN: return saturate(sqrt(vector_sq_distance(q, v, n)));
    case DISTANCE_DOT_PRODUCT: return saturate(vector_dot(q, v, n));
    }
    return 0;
}

bool vector_score_better(enum distance_function f, double a, double b)
{
    return f == DISTANCE_DOT_PRODUCT ? a > b : a < b;
}
