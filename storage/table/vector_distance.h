/*
 * vector_distance.h - the arithmetic of vector search: dot products and
 * squared distances over 32-bit floats, and the score DynamoDB defines for
 * each distance function (API reference, SearchVectors: COSINE 0..2 and
 * EUCLIDEAN smaller is closer, DOT_PRODUCT larger is closer).
 *
 * Products of two floats are exact in double, and sums are accumulated in
 * double in eight lanes (a fixed order, so a result never depends on the
 * machine's instruction set): the loops are written for GCC to vectorize
 * (-O3, contiguous arrays, restrict, no branches), and on x86-64 an AVX2
 * copy is chosen at run time. Pure functions; no lock.
 */
#ifndef DDB_VECTOR_DISTANCE_H
#define DDB_VECTOR_DISTANCE_H

#include "storage/model/schema.h"

#include <stdbool.h>
#include <stddef.h>

/* The largest finite 32-bit float: scores saturate there, never inf or NaN. */
#define VECTOR_SCORE_MAX 3.4028234663852886e38

/* Sum of a[i] * b[i]. */
double vector_dot(const float *restrict a, const float *restrict b, size_t n);
/* Sum of (a[i] - b[i])^2. */
double vector_sq_distance(const float *restrict a, const float *restrict b, size_t n);

/* The score of v against the query q (both n floats); qq and vv are
 * vector_dot(q, q) and vector_dot(v, v). COSINE: 1 - cos in [0, 2], exactly 1
 * when either vector is zero; EUCLIDEAN: the distance; DOT_PRODUCT: the dot
 * product; saturated to +-VECTOR_SCORE_MAX. */
double vector_score(enum distance_function f, const float *q, double qq, const float *v, double vv,
                    size_t n);
/* Whether score a ranks before score b under f (smaller first, but larger
 * first for DOT_PRODUCT); false for equal scores. */
bool vector_score_better(enum distance_function f, double a, double b);

#endif
