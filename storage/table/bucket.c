/*
 * bucket.c - token-bucket arithmetic; see bucket.h.
 */
#include "storage/table/bucket.h"

void bucket_refill(struct token_bucket *b, double rate_per_s, int64_t now_ms)
{
    double cap = rate_per_s * BUCKET_BURST_SECONDS;

    if (!b->started) {
        /* A new bucket: one second of capacity, nothing unused yet. */
        b->started = true;
        b->tokens = rate_per_s;
        b->last_ms = now_ms;
        return;
    }
    /* A clock set back earns nothing until it passes the last refill again,
     * so that moving it back and forth does not pay twice. */
    if (now_ms > b->last_ms) {
        b->tokens += rate_per_s * (double) (now_ms - b->last_ms) / 1000.0;
        b->last_ms = now_ms;
    }
    /* A lowered throughput (UpdateTable) also lowers what is retained. */
    if (b->tokens > cap) b->tokens = cap;
}

bool bucket_admits(struct token_bucket *b, double rate_per_s, int64_t now_ms)
{
    bucket_refill(b, rate_per_s, now_ms);
    return b->tokens > 0;
}

void bucket_take(struct token_bucket *b, double rate_per_s, int64_t now_ms, double units)
{
    bucket_refill(b, rate_per_s, now_ms);
    b->tokens -= units;
}
