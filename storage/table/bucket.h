/*
 * bucket.h - a token bucket on the engine clock: provisioned capacity with
 * DynamoDB's burst capacity.
 *
 * A provisioned table or GSI earns its units per second continuously, and
 * DynamoDB "currently retains up to five minutes (300 seconds) of unused read
 * and write capacity" (developerguide/burst-adaptive-capacity.html, "Burst
 * capacity"; repost.aws "dynamodb-spiky-workloads-short-intervals": 150 RCU
 * unused for five minutes is 45,000 units of burst). So the bucket holds at
 * most BUCKET_BURST_SECONDS x rate units and refills at rate units per second.
 *
 * Where AWS documents nothing, the emulator's choices (docs/differences.md):
 * a new bucket holds one second of capacity (no unused capacity yet); a
 * request is admitted while the bucket holds more than zero units and then
 * pays what it actually consumed, which may leave the bucket in debt (a write
 * or a Query only knows its cost once done), so a request that costs more
 * than the bucket held throttles the ones after it until the debt is earned
 * back. A clock set back earns nothing.
 *
 * Plain data, no locking: the owner (throttle.c) guards it.
 */
#ifndef DDB_THROTTLE_BUCKET_H
#define DDB_THROTTLE_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

#define BUCKET_BURST_SECONDS 300

struct token_bucket {
    bool started;    /* false: never used (a zeroed bucket is a new one) */
    double tokens;   /* units available; negative while in debt */
    int64_t last_ms; /* engine clock of the last refill */
};

/* Earns rate units per second since the last refill, up to the burst limit. */
void bucket_refill(struct token_bucket *b, double rate_per_s, int64_t now_ms);
/* Refills, then whether a request may start (more than zero units left). */
bool bucket_admits(struct token_bucket *b, double rate_per_s, int64_t now_ms);
/* Refills, then takes units (possibly into debt). */
void bucket_take(struct token_bucket *b, double rate_per_s, int64_t now_ms, double units);

#endif
