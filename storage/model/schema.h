/*
 * schema.h - table and index definitions, and the descriptions storage reports.
 *
 * A struct table_def is what CreateTable asks for, already decoded and
 * validated by api/ (shapes and cross-field rules with AWS's messages); storage
 * trusts it. struct table_desc is what DescribeTable and friends report: the
 * definition plus the state storage keeps (status, counts, ARNs, times).
 *
 * Ownership: every pointer inside these structs is owned by the struct;
 * *_clear() frees, *_copy() deep-copies.
 */
#ifndef DDB_SCHEMA_H
#define DDB_SCHEMA_H

#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fixed account id in every ARN (DynamoDB Local uses the same). */
#define DDB_ACCOUNT_ID "000000000000"

/* Multi-attribute GSI keys (November 2025) allow up to four attributes per role. */
#define DDB_MAX_KEY_PARTS 4

struct key_schema {
    size_t hash_count; /* 1 for tables and LSIs; 1..4 for GSIs */
    char *hash_names[DDB_MAX_KEY_PARTS];
    size_t range_count; /* 0 or 1 for tables and LSIs; 0..4 for GSIs */
    char *range_names[DDB_MAX_KEY_PARTS];
};

struct attr_def {
    char *name;
    enum value_type type; /* VALUE_S, VALUE_N or VALUE_B */
};

enum projection_type { PROJECTION_ALL, PROJECTION_KEYS_ONLY, PROJECTION_INCLUDE };

struct projection {
    enum projection_type type;
    char **non_key_attrs; /* INCLUDE only; each NUL-terminated, but names may contain NUL */
    size_t *non_key_lens; /* parallel to non_key_attrs: each name's length in bytes */
    size_t non_key_count;
};

struct throughput {
    int64_t read_units; /* 0 when the table is on demand */
    int64_t write_units;
};

/* OnDemandThroughput: the most read/write request units per second an on-demand
 * table may use; 0 when no maximum is set (-1 in requests clears one). */
struct on_demand_throughput {
    int64_t max_read;
    int64_t max_write;
};

/* WarmThroughput the table was asked to be ready for; 0 when never configured
 * (the description then reports the defaults). */
struct warm_throughput {
    int64_t read_per_s;
    int64_t write_per_s;
};

enum index_status { INDEX_CREATING, INDEX_UPDATING, INDEX_DELETING, INDEX_ACTIVE };

struct index_def {
    char *name;
    bool is_global;
    struct key_schema key;
    struct projection projection;
    struct throughput throughput;          /* GSIs on provisioned tables */
    struct on_demand_throughput on_demand; /* GSIs of on-demand tables */
    struct warm_throughput warm;           /* GSIs */
};

/* A vector index (CreateTable VectorIndexes, UpdateTable VectorIndexUpdates
 * Create): the list attribute holding embeddings, their dimensions, the
 * distance function and the SearchSchema (at most one HASH element and
 * INLINE_FILTER elements, each an attribute of AttributeDefinitions). */
enum distance_function { DISTANCE_COSINE, DISTANCE_DOT_PRODUCT, DISTANCE_EUCLIDEAN };
enum search_element_type { SEARCH_HASH, SEARCH_INLINE_FILTER };

struct search_element {
    char *name;
    enum search_element_type type;
};

struct vector_index_def {
    char *name;
    char *attribute;               /* VectorAttribute.AttributeName */
    struct search_element *search; /* in request order */
    size_t search_count;
    struct projection projection;
    int64_t dimensions; /* 1..DDB_MAX_VECTOR_DIMENSIONS */
    enum distance_function distance;
};

enum billing_mode { BILLING_PROVISIONED, BILLING_PAY_PER_REQUEST };

enum stream_view {
    STREAM_NEW_IMAGE,
    STREAM_OLD_IMAGE,
    STREAM_NEW_AND_OLD_IMAGES,
    STREAM_KEYS_ONLY
};

struct stream_spec {
    bool enabled;
    enum stream_view view; /* meaningful when enabled */
};

struct sse_spec {
    bool enabled;            /* SSESpecification.Enabled true: KMS; false/absent: AWS-owned key */
    char *sse_type;          /* "KMS" or NULL */
    char *kms_master_key_id; /* NULL unless given */
};

struct tag {
    char *key;
    char *value;
};

struct table_def {
    char *name;
    struct attr_def *attr_defs; /* every attribute used in any key schema, and no other */
    size_t attr_def_count;
    struct key_schema key;
    enum billing_mode billing;
    struct throughput throughput; /* zero for PAY_PER_REQUEST */
    struct index_def *gsis;
    size_t gsi_count;
    struct index_def *lsis;
    size_t lsi_count;
    struct stream_spec stream;
    struct sse_spec sse;
    bool deletion_protection;
    char *table_class; /* "STANDARD" or "STANDARD_INFREQUENT_ACCESS"; NULL when never set */
    struct tag *tags;
    size_t tag_count;
    struct on_demand_throughput on_demand; /* the table's; not its GSIs' */
    struct warm_throughput warm;           /* the table's; not its GSIs' */
    struct vector_index_def *vectors;      /* vector indexes, in creation order */
    size_t vector_count;
    /* Global-table settings kept and described, with no effect here (one
     * region): GlobalTableSettingsReplicationMode ("ENABLED" or "DISABLED";
     * NULL when never set) and DisassociationProtectionEnabled (described
     * once set: has_disassociation_protection). */
    char *replication_mode;
    bool has_disassociation_protection;
    bool disassociation_protection;
};

enum table_status { TABLE_CREATING, TABLE_UPDATING, TABLE_DELETING, TABLE_ACTIVE };

struct index_desc {
    enum index_status status;
    bool backfilling;
    bool show_backfilling; /* Backfilling is reported: GSIs added by UpdateTable, while CREATING */
    int64_t item_count;
    int64_t size_bytes;
    char *arn; /* owned */
};

/* RestoreSummary: where a restored table came from (RestoreTableFromBackup,
 * RestoreTableToPointInTime); present stays false for other tables. */
struct restore_summary {
    bool present;
    char *source_backup_arn; /* owned; NULL for a point-in-time restore */
    char *source_table_arn;  /* owned */
    int64_t restore_ms;      /* the time the table was restored to */
    bool in_progress;
};

void restore_summary_clear(struct restore_summary *r);
void restore_summary_copy(struct restore_summary *dst, const struct restore_summary *src);

struct table_desc {
    struct table_def def;
    enum table_status status;
    char *arn;      /* arn:aws:dynamodb:<region>:<account>:table/<name> */
    char *table_id; /* a UUID */
    char *region;
    int64_t creation_ms;
    int64_t item_count;
    int64_t size_bytes;
    int64_t billing_last_update_ms; /* 0 when never switched */
    int64_t throughput_last_increase_ms;
    int64_t throughput_last_decrease_ms;
    int64_t throughput_decreases_today;
    struct index_desc *gsi_descs;    /* parallel to def.gsis */
    struct index_desc *lsi_descs;    /* parallel to def.lsis */
    struct index_desc *vector_descs; /* parallel to def.vectors */
    char *latest_stream_arn;         /* NULL when the table never had a stream */
    char *latest_stream_label;
    struct restore_summary restore;
};

/* Type of a key attribute from the definitions, or false when not defined. */
bool table_def_attr_type(const struct table_def *def, const char *name, enum value_type *out);
const struct index_def *table_def_find_index(const struct table_def *def, const char *name);
void key_schema_clear(struct key_schema *k);
void key_schema_copy(struct key_schema *dst, const struct key_schema *src);
bool key_schema_has(const struct key_schema *k, const char *name);
void projection_clear(struct projection *p);
void projection_copy(struct projection *dst, const struct projection *src);
void index_def_clear(struct index_def *d);
void index_def_copy(struct index_def *dst, const struct index_def *src);
void table_def_clear(struct table_def *def);
void table_def_copy(struct table_def *dst, const struct table_def *src);
void table_desc_clear(struct table_desc *d);

const char *billing_mode_name(enum billing_mode m);
const char *stream_view_name(enum stream_view v);
const char *table_status_name(enum table_status s);
const char *index_status_name(enum index_status s);
const char *projection_type_name(enum projection_type t);

/* ---- vector index definitions (schema.c) ---- */
void vector_index_def_clear(struct vector_index_def *d);
void vector_index_def_copy(struct vector_index_def *dst, const struct vector_index_def *src);
/* The vector index named name, or NULL. */
const struct vector_index_def *table_def_find_vector(const struct table_def *def, const char *name);
/* The HASH element's attribute name, or NULL when the SearchSchema has none. */
const char *vector_index_hash_name(const struct vector_index_def *d);
const char *distance_function_name(enum distance_function f);
const char *search_element_type_name(enum search_element_type t);

#endif
