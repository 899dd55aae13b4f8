/*
 * report.h - the access-pattern report as plain data: a snapshot of one
 * table's counters (insight.h) with the table facts it is judged against,
 * the monthly cost at the observed rate, and the findings in plain language.
 *
 * storage/engine/db_report.c fills the snapshot under the engine lock; everything
 * here after that is pure arithmetic on the snapshot (no lock, no clock), so
 * api/ can render it and unit tests can check it. Every string and value in
 * a report is owned by it (insight_report_table_clear).
 *
 * The per-partition limits are DynamoDB's (developerguide/
 * warm-throughput-scenarios.html); the item and item-collection limits come
 * from base/limits.h; the prices from prices.h.
 */
#ifndef DDB_INSIGHT_REPORT_H
#define DDB_INSIGHT_REPORT_H

#include "storage/insight/insight.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INSIGHT_PARTITION_RCU_PER_S 3000.0
#define INSIGHT_PARTITION_WCU_PER_S 1000.0
#define INSIGHT_TOP_KEYS            10

/* A partition key and its busiest second. */
struct insight_key_report {
    struct value key; /* owned: the partition key value (a list of parts for several) */
    double peak_per_s;
    int64_t peak_ms;
    double total;
};

struct insight_filter_report {
    char attrs[INSIGHT_FILTER_TEXT];
    bool is_scan;
    uint64_t requests, items_read, items_returned;
};

struct insight_reads_report {
    uint64_t requests, items_read, items_returned, bytes_read;
    double units;
};

/* The table (name NULL) or one of its indexes. */
struct insight_source_report {
    char *name; /* owned; NULL for the table */
    bool is_global;
    double rcu, wcu;
    uint64_t writes;
    struct insight_reads_report query, scan;
    struct insight_filter_report filters[INSIGHT_MAX_FILTERS];
    size_t filter_count;
    double peak_rcu_per_s, peak_wcu_per_s; /* the whole source's busiest second */
    int64_t peak_rcu_ms, peak_wcu_ms;
    struct insight_key_report top_read[INSIGHT_TOP_KEYS], top_write[INSIGHT_TOP_KEYS];
    size_t top_read_count, top_write_count;
    uint64_t keys_tracked, keys_evicted;
    int64_t item_count; /* items in the table or entries in the index */
    int64_t size_bytes; /* item bytes, or projected bytes in the index */
    bool provisioned;   /* a table or GSI in PROVISIONED mode */
    int64_t provisioned_rcu, provisioned_wcu;
};

struct insight_item_report {
    struct value key; /* owned VALUE_M of the key attributes */
    size_t bytes;
};

struct insight_collection_report {
    struct value key; /* owned partition key value */
    int64_t bytes;
};

/* One vector index of the table: its searches and writes, in the bytes
 * ConsumedCapacity reports them in. */
struct insight_vector_report {
    char name[256];
    uint64_t searches, writes;
    double search_bytes, write_bytes;
    int64_t item_count, size_bytes;
};

/* Monthly cost of one capacity figure: units per second kept for 730 hours. */
struct insight_cost {
    double observed_seconds;
    double rcu_per_s, wcu_per_s;                      /* average over the observed time */
    double on_demand_monthly;                         /* request units at the average rate */
    int64_t provisioned_avg_rcu, provisioned_avg_wcu; /* the average, rounded up, at least 1 */
    double provisioned_avg_monthly;
    int64_t provisioned_peak_rcu, provisioned_peak_wcu; /* the busiest second, rounded up */
    double provisioned_peak_monthly;
    bool has_configured;       /* the table is PROVISIONED */
    double configured_monthly; /* what its provisioned throughput costs */
    /* Vector indexes, billed by the byte whatever the table's mode: the
     * observed VectorSearchRequestBytes and VectorWriteRequestBytes rates. */
    double vector_search_monthly;
    double vector_write_monthly;
};

enum insight_severity { INSIGHT_WARNING, INSIGHT_NOTICE };

struct insight_finding {
    enum insight_severity severity;
    char kind[32]; /* hot_partition, read_amplification, scan_share, large_item, ... */
    char *index;   /* owned; NULL: the table */
    char *message; /* owned, plain language with the numbers */
};

struct insight_report_table {
    char *name;
    char *namespace_id;
    bool pay_per_request;
    bool has_lsi;
    int64_t since_ms, now_ms;
    uint64_t requests[INSIGHT_OP_COUNT];
    uint64_t items_read, items_returned, items_written;
    uint64_t conditional_check_failed, transactions_canceled;
    uint64_t stale_reads, gsi_stale_reads, conflicts; /* --consistency aws */
    struct insight_sizes batch_get, batch_write, transact_get, transact_write;
    struct insight_item_report largest[INSIGHT_LARGEST_ITEMS];
    size_t largest_count;
    int64_t item_limit_bytes;
    struct insight_collection_report collections[INSIGHT_LARGEST_ITEMS];
    size_t collection_count;
    int64_t collection_limit_bytes;
    struct insight_source_report *sources; /* owned; [0] the table, then its indexes */
    size_t source_count;
    struct insight_vector_report *vectors; /* owned; the table's vector indexes */
    size_t vector_count;
    struct insight_cost cost;
    struct insight_finding *findings; /* owned */
    size_t finding_count;
};

void insight_report_table_clear(struct insight_report_table *r);

/* Copies a source's counters and top keys into *out (the caller fills the
 * table facts: name, counts, sizes, throughput). */
void insight_source_snapshot(const struct insight_source *s, struct insight_source_report *out);

/* Fills r->cost from the counters and r->findings from everything else. */
void insight_report_judge(struct insight_report_table *r);

/* Every read unit of the table and its indexes, and every write unit. */
double insight_report_rcu(const struct insight_report_table *r);
double insight_report_wcu(const struct insight_report_table *r);

#endif
