/*
 * throttle.h - AWS's throughput model (--throughput-model aws): whether a
 * request may start, and what it consumed.
 *
 * The rules, each from the developer guide or AWS's knowledge center:
 * - Provisioned tables and GSIs earn their RCU/WCU per second and keep up to
 *   300 seconds of unused capacity as burst (bucket.h). An LSI has no
 *   capacity of its own: its reads and writes use the table's.
 * - Every partition key serves at most 3,000 read units and 1,000 write
 *   units per second, "or a linear combination of both", whatever the
 *   capacity mode; burst capacity does not lift it
 *   (repost.aws "on-demand-table-throttling-dynamodb", "dynamodb-spiky-
 *   workloads-short-intervals"). The report's sliding one-second windows
 *   (insight/heat.h) are the measure: the units of the last second.
 * - An on-demand table (and each of its GSIs) takes at once up to 4,000
 *   write or 12,000 read units per second, or a linear combination, or twice
 *   its previous peak - a peak reached at least 30 minutes ago
 *   (developerguide/on-demand-capacity-mode.html "Initial throughput and
 *   scaling properties"; pre-warming-on-demand-capacity-mode.html), and never
 *   more than its OnDemandThroughput maximum.
 * - A GSI that cannot take a write throttles the base-table write that would
 *   change it (back-pressure, developerguide/GSI.html "Throughput
 *   considerations").
 * Throttled requests change nothing and consume nothing. Provisioned limits
 * answer ProvisionedThroughputExceededException, on-demand ones
 * ThrottlingException, each with the text AWS sends.
 *
 * Locking: the caller holds the engine lock (shared for reads, exclusive for
 * writes); the buckets are guarded by t->throttle.mu and the windows by the
 * insight lock, both taken here. Nothing is allocated.
 */
#ifndef DDB_THROTTLE_H
#define DDB_THROTTLE_H

#include "storage/base/error.h"
#include "storage/table/bucket.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* DynamoDB's per-partition limits, units per second. */
#define THROTTLE_PARTITION_RCU 3000.0
#define THROTTLE_PARTITION_WCU 1000.0
/* What a new on-demand table takes at once, units per second. */
#define THROTTLE_ON_DEMAND_RCU 12000.0
#define THROTTLE_ON_DEMAND_WCU 4000.0
/* How old a peak must be before on-demand takes twice it at once. */
#define THROTTLE_PEAK_SETTLE_MS (30 * 60 * 1000)

/* The model's state for a table or a GSI. The one part of a table that
 * changes under the engine's shared lock (reads pay into it): always behind
 * struct table_throttle's mutex. */
struct throttle_source {
    struct token_bucket read, write; /* provisioned capacity */
    double settled_rcu, settled_wcu; /* on demand: the previous peak, 30 minutes old */
};

/* A table's state: its own, and its GSIs' in struct table_index. */
struct table_throttle {
    pthread_mutex_t mu; /* guards every throttle_source of the table */
    struct throttle_source table;
};

struct table;
struct table_index;
struct item;
struct key_part;
struct row_key;

void table_throttle_init(struct table_throttle *th);
void table_throttle_clear(struct table_throttle *th);

/* Whether a read may start: on the table (gsi NULL; an LSI reads the table's
 * capacity) or a GSI, of the partition key (hash, parts, count), or of no
 * one partition (count 0: a Scan). */
int throttle_admit_read(struct table *t, const struct table_index *gsi, uint64_t hash,
                        const struct key_part *parts, size_t count, int64_t now_ms,
                        struct ddb_error *err);

/* Whether a write of item key (old -> new_item, either NULL) may start: the
 * table, and every GSI whose entries it changes. */
int throttle_admit_write(struct table *t, const struct row_key *key, const struct item *old,
                         const struct item *new_item, int64_t now_ms, struct ddb_error *err);

/* Units a request consumed on the table (gsi NULL) or a GSI. */
void throttle_charge(struct table *t, const struct table_index *gsi, double rcu, double wcu,
                     int64_t now_ms);

#endif
