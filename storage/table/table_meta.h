/*
 * table_meta.h - what a table carries besides its definition and items:
 * its resource-based policies, its contributor insights settings and its
 * Kinesis streaming destinations.
 *
 * None of it changes how items are stored or read: ddbemu keeps, validates
 * and describes these settings (docs/differences.md says what they do not
 * do here). They live and die with the table, are recorded with its state
 * (engine/db_persist.c) and are changed only by storage's entry points
 * (policies.c, contributor_insights.c, kinesis.c) under the engine lock held
 * exclusively. Tags are part of the definition (schema.h, struct tag).
 *
 * Ownership: every pointer is owned by the struct; table_meta_clear() frees.
 */
#ifndef DDB_TABLE_META_H
#define DDB_TABLE_META_H

#include "storage/base/text.h"
#include "storage/model/codec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A resource-based policy: the document as the client sent it, and its
 * revision (a millisecond timestamp as text, as DynamoDB's are). */
struct resource_policy {
    char *document;    /* NULL: no policy */
    char *revision_id; /* NULL when document is */
};

/* Contributor insights of the table (index_name NULL) or of one index. */
struct insights_setting {
    char *index_name;
    bool enabled;
    char *mode;         /* ContributorInsightsMode: ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS */
    int64_t updated_ms; /* the last UpdateContributorInsights */
};

enum kinesis_status {
    KINESIS_ACTIVE,
    KINESIS_DISABLED,
};

/* One Kinesis data stream the table was ever streamed to. */
struct kinesis_destination {
    char *stream_arn;
    enum kinesis_status status;
    char *precision; /* ApproximateCreationDateTimePrecision: MILLISECOND or MICROSECOND */
};

struct table_meta {
    struct resource_policy policy;        /* of the table */
    struct resource_policy stream_policy; /* of the stream named by stream_policy_label */
    char *stream_policy_label;
    struct insights_setting *insights; /* in the order they were first set */
    size_t insights_count;
    struct kinesis_destination *kinesis; /* in the order they were first enabled */
    size_t kinesis_count;
};

void resource_policy_clear(struct resource_policy *p);
void table_meta_clear(struct table_meta *m);

/* The setting of the table (index_name NULL) or of an index; NULL when never set. */
struct insights_setting *table_meta_insights(struct table_meta *m, const char *index_name);
/* The same, added (disabled) when missing. */
struct insights_setting *table_meta_insights_add(struct table_meta *m, const char *index_name);
/* The destination with this stream ARN, or NULL. */
struct kinesis_destination *table_meta_kinesis(struct table_meta *m, const char *stream_arn);
/* The same, added (DISABLED) when missing. */
struct kinesis_destination *table_meta_kinesis_add(struct table_meta *m, const char *stream_arn);

/* The record engine/db_persist.c stores for m, and its reading (false: malformed). */
void table_meta_encode(struct text_buf *b, const struct table_meta *m);
bool table_meta_decode(struct codec_in *in, struct table_meta *out);

#endif
