/*
 * op_insights.c - DescribeContributorInsights, UpdateContributorInsights,
 * ListContributorInsights.
 *
 * Storage (contributor_insights.c) keeps the setting per table and global secondary
 * index; this file writes DynamoDB's answers. The rule list names the
 * CloudWatch rules DynamoDB creates
 * (DynamoDBContributorInsights-{PKC,SKC,PKT,SKT}-<resource>-<creation ms>;
 * developerguide/contributorinsights_HowItWorks.html): the ...C (most
 * accessed) rules only in ACCESSED_AND_THROTTLED_KEYS mode, the SK rules only
 * when the table or index has a sort key (ack-api-quirks DDB-TABLE-092). No
 * rule exists here: there is no CloudWatch (docs/differences.md).
 */
#include "api/ops/ops.h"
#include "api/wire/body.h"
#include "api/wire/shape.h"
#include "api/wire/wire_table.h"
#include "storage/base/limits.h"
#include "storage/control/settings.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_choices[] = {"ENABLE", "DISABLE", NULL};
static const char *const mode_choices[] = {"ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS", NULL};

/* [q DDB-TABLE-457]: "IndexName must be at least 3 characters long and at
 * most 255 characters long", before the model constraints. */
#define INSIGHTS_INDEX_NAME_FIELD                                                                  \
    {                                                                                              \
        "IndexName", F_STRING, .table_name = true, .pattern = SHAPE_TABLE_NAME_PATTERN             \
    }

const struct field describe_contributor_insights_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    INSIGHTS_INDEX_NAME_FIELD,
    {0},
};

const struct field update_contributor_insights_fields[] = {
    SHAPE_TABLE_NAME_FIELD,
    INSIGHTS_INDEX_NAME_FIELD,
    {"ContributorInsightsAction", F_STRING, .required = true, .choices = action_choices},
    {"ContributorInsightsMode", F_STRING, .choices = mode_choices},
    {0},
};

/* ListContributorInsightsLimit: at most 100 per page. */
#define LIST_MAX 100

const struct field list_contributor_insights_fields[] = {
    {"TableName", F_STRING, .table_ref = true},
    {"NextToken", F_STRING},
    {"MaxResults", F_INTEGER, .has_max = true, .max_value = LIST_MAX},
    {0},
};

static const char *status_name(const struct insights_desc *d)
{
    if (d->changing) return d->enabled ? "ENABLING" : "DISABLING";
    return d->enabled ? "ENABLED" : "DISABLED";
}

static json_t *rule_list(const struct insights_desc *d)
{
    static const char *const kinds[] = {"PKC", "SKC", "PKT", "SKT"};
    bool accessed = d->mode && strcmp(d->mode, "THROTTLED_KEYS") != 0;
    json_t *list = json_array();

    for (size_t i = 0; i < 4; i++) {
        char name[600];
        if (kinds[i][2] == 'C' && !accessed) continue;
        if (kinds[i][0] == 'S' && !d->has_sort_key) continue;
        snprintf(name, sizeof name, "DynamoDBContributorInsights-%s-%s%s%s-%" PRId64, kinds[i],
                 d->table_name, d->index_name ? "-" : "", d->index_name ? d->index_name : "",
                 d->updated_ms);
        json_array_append_new(list, json_string(name));
    }
    return list;
}

static void set_names(json_t *obj, const struct insights_desc *d)
{
    json_object_set_new(obj, "TableName", json_string(d->table_name));
    if (d->index_name) json_object_set_new(obj, "IndexName", json_string(d->index_name));
}

int op_describe_contributor_insights(struct api_request *rq)
{
    struct insights_desc d;

    if (db_describe_insights(rq->db, &rq->scope, body_member_str(rq->body, "TableName"),
                             body_member_str(rq->body, "IndexName"), &d, &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    set_names(rq->reply, &d);
    if (d.enabled) json_object_set_new(rq->reply, "ContributorInsightsRuleList", rule_list(&d));
    json_object_set_new(rq->reply, "ContributorInsightsStatus", json_string(status_name(&d)));
    if (d.ever_set) {
        json_object_set_new(rq->reply, "LastUpdateDateTime", wire_epoch_seconds(d.updated_ms));
        json_object_set_new(rq->reply, "ContributorInsightsMode", json_string(d.mode));
    }
    insights_desc_clear(&d);
    return 0;
}

int op_update_contributor_insights(struct api_request *rq)
{
    struct insights_desc d;
    bool enable = body_member_is(rq->body, "ContributorInsightsAction", "ENABLE");

    if (db_update_insights(rq->db, &rq->scope, body_member_str(rq->body, "TableName"),
                           body_member_str(rq->body, "IndexName"), enable,
                           body_member_str(rq->body, "ContributorInsightsMode"), &d, &rq->err) != 0)
        return -1;
    rq->reply = json_object();
    set_names(rq->reply, &d);
    json_object_set_new(rq->reply, "ContributorInsightsStatus", json_string(status_name(&d)));
    if (d.mode) json_object_set_new(rq->reply, "ContributorInsightsMode", json_string(d.mode));
    insights_desc_clear(&d);
    return 0;
}

int op_list_contributor_insights(struct api_request *rq)
{
    const char *token = body_member_str(rq->body, "NextToken");
    json_int_t max = body_member_int(rq->body, "MaxResults");
    struct insights_desc *all = NULL;
    size_t count = 0, first = 0, page = max > 0 ? (size_t) max : LIST_MAX;
    json_t *list;
    int rc = -1;

    if (db_list_insights(rq->db, &rq->scope, body_member_str(rq->body, "TableName"), &all, &count,
                         &rq->err) != 0)
        goto out;
    if (token) {
        char *end;
        errno = 0;
        long n = strtol(token, &end, 10);
        if (errno || end == token || *end || n <= 0) {
            ddb_error_set(&rq->err, DDB_VALIDATION, "Invalid NextToken: %s", token);
            goto out;
        }
        first = (size_t) n;
    }
    list = json_array();
    for (size_t i = first; i < count && i < first + page; i++) {
        json_t *s = json_object();
        set_names(s, &all[i]);
        json_object_set_new(s, "ContributorInsightsStatus", json_string(status_name(&all[i])));
        json_object_set_new(s, "ContributorInsightsMode", json_string(all[i].mode));
        json_array_append_new(list, s);
    }
    rq->reply = json_object();
    json_object_set_new(rq->reply, "ContributorInsightsSummaries", list);
    if (first + page < count) {
        char next[32];
        snprintf(next, sizeof next, "%zu", first + page);
        json_object_set_new(rq->reply, "NextToken", json_string(next));
    }
    rc = 0;
out:
    for (size_t i = 0; i < count; i++)
        insights_desc_clear(&all[i]);
    free(all);
    return rc;
}
