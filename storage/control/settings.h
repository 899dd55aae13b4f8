/*
 * settings.h - the storage entry points for a table's settings that do not
 * touch its items: tags (tags.c), resource-based policies (policies.c),
 * contributor insights (contributor_insights.c), Kinesis streaming
 * destinations (kinesis.c) and point-in-time recovery (continuous_backups.c).
 *
 * The same contract as db.h: each function takes the engine lock, raises
 * AWS's error (ResourceNotFoundException for a missing table, with the text
 * each family of operations uses) or changes the table, records the change
 * with --db-path, and returns copies the caller owns. Requests reach here
 * validated by api/ (shapes, tag and policy rules); what needs the table's
 * state (the tag count after a merge, revision ids, index names, a
 * destination's status) is checked here, before anything changes.
 */
#ifndef DDB_CONTROL_SETTINGS_H
#define DDB_CONTROL_SETTINGS_H

#include "storage/engine/db.h"
#include "storage/table/table.h"
#include "storage/table/table_meta.h"

/* ---- tags (tags.c) ----
 * resource_arn is the ARN the request named, for the not-found text
 * "Requested resource not found: ResourceArn: <arn> not found". */

/* The table's tags, copied into *tags (free with tags_free). */
int db_list_tags(struct db *db, const struct db_scope *scope, const char *table_name,
                 const char *resource_arn, struct tag **tags, size_t *count, struct ddb_error *err);
/* Adds or replaces tags; ValidationException when the merged set would pass 50. */
int db_tag_resource(struct db *db, const struct db_scope *scope, const char *table_name,
                    const char *resource_arn, const struct tag *tags, size_t count,
                    struct ddb_error *err);
/* Removes the keys the table has (absent keys are no error). */
int db_untag_resource(struct db *db, const struct db_scope *scope, const char *table_name,
                      const char *resource_arn, char *const *keys, size_t count,
                      struct ddb_error *err);
void tags_free(struct tag *tags, size_t count);

/* ---- resource-based policies (policies.c) ---- */

/* What a policy operation names: the table, or its stream (stream_label set).
 * resource_arn is the ARN the request named, for PolicyNotFoundException. */
struct policy_target {
    const char *table_name;
    const char *stream_label; /* NULL: the table */
    const char *resource_arn;
};

/* The policy, copied into *out (resource_policy_clear frees);
 * PolicyNotFoundException when there is none. */
int db_get_resource_policy(struct db *db, const struct db_scope *scope,
                           const struct policy_target *target, struct resource_policy *out,
                           struct ddb_error *err);
/* Attaches document (validated by the caller). expected_revision: NULL for
 * any, "NO_POLICY" for none, else the revision the current policy must have.
 * The same document again changes nothing and keeps its revision. *revision_id
 * (owned) is the policy's revision afterwards. */
int db_put_resource_policy(struct db *db, const struct db_scope *scope,
                           const struct policy_target *target, const char *document,
                           const char *expected_revision, char **revision_id,
                           struct ddb_error *err);
/* Removes the policy; *revision_id (owned) is the revision it had. */
int db_delete_resource_policy(struct db *db, const struct db_scope *scope,
                              const struct policy_target *target, const char *expected_revision,
                              char **revision_id, struct ddb_error *err);

/* ---- contributor insights (contributor_insights.c) ---- */

/* A table's or index's contributor insights, as described. */
struct insights_desc {
    char *table_name;
    char *index_name;   /* NULL for the table */
    bool ever_set;      /* false: never enabled (no rule list, no time) */
    bool enabled;       /* ENABLED / DISABLED once settled */
    bool changing;      /* the update's answer: ENABLING / DISABLING */
    char *mode;         /* NULL when never set */
    int64_t updated_ms; /* the rules' creation time */
    bool has_sort_key;  /* the table or index has a range key (SKC/SKT rules) */
};
void insights_desc_clear(struct insights_desc *d);

int db_describe_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                         const char *index_name, struct insights_desc *out, struct ddb_error *err);
/* ENABLE (mode: NULL for the default ACCESSED_AND_THROTTLED_KEYS) or DISABLE.
 * out->changing tells whether the answer is ENABLING/DISABLING. */
int db_update_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                       const char *index_name, bool enable, const char *mode,
                       struct insights_desc *out, struct ddb_error *err);
/* Every setting of the scope's tables (of table_name only, when given), in
 * table name order, then in the order they were first set. */
int db_list_insights(struct db *db, const struct db_scope *scope, const char *table_name,
                     struct insights_desc **out, size_t *count, struct ddb_error *err);

/* ---- Kinesis streaming destinations (kinesis.c) ---- */

enum kinesis_action { KINESIS_ENABLE, KINESIS_DISABLE, KINESIS_UPDATE };

/* Every destination of the table, copied (free with kinesis_destinations_free). */
int db_describe_kinesis(struct db *db, const struct db_scope *scope, const char *table_name,
                        struct kinesis_destination **out, size_t *count, struct ddb_error *err);
/* Enables, disables or updates the destination stream_arn; precision is the
 * requested ApproximateCreationDateTimePrecision (NULL: unchanged, or
 * MILLISECOND when enabling). *precision_out (owned) is the precision the
 * destination has afterwards. */
int db_change_kinesis(struct db *db, const struct db_scope *scope, const char *table_name,
                      const char *stream_arn, enum kinesis_action action, const char *precision,
                      char **precision_out, struct ddb_error *err);
void kinesis_destinations_free(struct kinesis_destination *d, size_t count);

/* ---- point-in-time recovery (continuous_backups.c) ---- */

/* ContinuousBackupsDescription: continuous backups are always on; PITR as set. */
struct pitr_desc {
    bool enabled;
    int64_t recovery_days;
    int64_t earliest_ms; /* EarliestRestorableDateTime (when enabled) */
    int64_t latest_ms;   /* LatestRestorableDateTime (when enabled) */
};

/* DescribeContinuousBackups. TableNotFoundException ("Table not found: T"). */
int db_describe_continuous_backups(struct db *db, const struct db_scope *scope,
                                   const char *table_name, struct pitr_desc *out,
                                   struct ddb_error *err);
/* UpdateContinuousBackups: PITR on (recovery_days 0: keep the current period, 35
 * at first) or off; *out describes the result. TableNotFoundException. */
int db_update_continuous_backups(struct db *db, const struct db_scope *scope,
                                 const char *table_name, bool enabled, int64_t recovery_days,
                                 struct pitr_desc *out, struct ddb_error *err);

/* The earliest and latest restorable times of a table with point-in-time
 * recovery on, at now_ms (for restores and exports). */
void pitr_window(const struct table *t, int64_t now_ms, int64_t *earliest_ms, int64_t *latest_ms);

#endif
