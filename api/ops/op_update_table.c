/*
 * op_update_table.c - UpdateTable: the checks that need nothing but the
 * request, the decoding into one plan (struct table_update), one db_* call.
 *
 * Everything that depends on the table as it is now (does it exist, its
 * billing mode, its indexes, its WarmThroughput, its status, whether the
 * change changes anything) is checked by db_update_table under the exclusive
 * lock, before it applies the change in the same critical section
 * (storage/catalog_update_check.c), so that a concurrent UpdateTable cannot
 * slip between the check and the change. The request shape,
 * update_table_fields, is in op_table.c with CreateTable's member shapes it
 * reuses.
 *
 * The checks raise AWS's texts in AWS's order: all of those here come before
 * the table is looked up. Sources, cited as in op_table.c: [d] dynalite's
 * validations and tests recorded against the live service, [q] the
 * ack-api-quirks DynamoDB lab's findings (live service, 2026-10).
 */
#include "api/ops/ops.h"
#include "api/ops/table_rules.h"
#include "api/wire/body.h"
#include "api/wire/wire_table.h"
#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_tables.h"

#include <stdlib.h>
#include <string.h>

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ------------------------------------------------------------------------ */
/* which members may travel together                                         */
/* ------------------------------------------------------------------------ */

/* What an UpdateTable request asks to change (members present, null = absent). */
struct update_parts {
    bool throughput, billing, stream, gsi_updates, sse, deletion_protection, table_class;
    bool on_demand, warm, replicas, other; /* other: global-table members */
    bool replication_mode, disassociation_protection;
    bool gsi_create_or_delete;
    bool gsi_create;
    bool vector_updates;    /* VectorIndexUpdates: an online index change like a GSI Create */
    bool gsi_online_change; /* a GSI Create or Delete */
};

static void find_update_parts(const json_t *body, struct update_parts *p)
{
    const json_t *gsi = body_member(body, "GlobalSecondaryIndexUpdates");
    size_t i;
    json_t *u;

    memset(p, 0, sizeof *p);
    p->throughput = body_member(body, "ProvisionedThroughput") != NULL;
    p->billing = body_member(body, "BillingMode") != NULL;
    p->stream = body_member(body, "StreamSpecification") != NULL;
    p->gsi_updates = json_array_size(gsi) > 0;
    p->sse = body_member(body, "SSESpecification") != NULL;
    p->deletion_protection = body_member(body, "DeletionProtectionEnabled") != NULL;
    p->table_class = body_member(body, "TableClass") != NULL;
    /* An empty OnDemandThroughput/WarmThroughput is dropped as absent [q DDB-TABLE-456]. */
    p->on_demand = json_object_size(body_member(body, "OnDemandThroughput")) > 0;
    p->warm = json_object_size(body_member(body, "WarmThroughput")) > 0;
    p->replicas = body_member(body, "ReplicaUpdates") != NULL;
    p->replication_mode = body_member(body, "GlobalTableSettingsReplicationMode") != NULL;
    p->disassociation_protection = body_member(body, "DisassociationProtectionEnabled") != NULL;
    p->other = body_member(body, "MultiRegionConsistency") ||
               body_member(body, "GlobalTableWitnessUpdates");
    p->vector_updates = json_array_size(body_member(body, "VectorIndexUpdates")) > 0;
    if (p->vector_updates) p->gsi_create_or_delete = true;
    json_array_foreach(gsi, i, u)
    {
        if (body_member(u, "Create")) p->gsi_create = true;
        if (body_member(u, "Create") || body_member(u, "Delete")) {
            p->gsi_online_change = true;
            p->gsi_create_or_delete = true;
        }
    }
}

static int count_parts(const struct update_parts *p)
{
    return p->throughput + p->billing + p->stream + p->gsi_updates + p->sse +
           p->deletion_protection + p->table_class + p->on_demand + p->warm + p->replicas +
           p->other + p->vector_updates + p->replication_mode + p->disassociation_protection;
}

/* Which members may travel together [q DDB-TABLE-015/174/359/442]. */
static int check_update_combination(const json_t *body, const struct update_parts *p,
                                    struct ddb_error *err)
{
    int n = count_parts(p);

    if (n == 0)
        return ddb_error_set(err, DDB_VALIDATION,
                             "At least one of ProvisionedThroughput, BillingMode, "
                             "UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, "
                             "ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, "
                             "MultiRegionConsistency, DeletionProtectionEnabled, "
                             "OnDemandThroughput, WarmThroughput or TableClass is required");
    /* An empty list counts as absent above, but is refused next to a real change. */
    if (body_member(body, "GlobalSecondaryIndexUpdates") && !p->gsi_updates)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "List of GlobalSecondaryIndexUpdates is empty");
    /* Members that must travel alone, in the order AWS checks them. The last
     * two texts are ours, in the form of DeletionProtection's ("You can't
     * combine this change with any other change in the same UpdateTable
     * request", the model's documentation). */
    const struct {
        bool given;
        const char *what;
    } alone[] = {
        {p->replicas, "Replica"},
        {p->sse, "Server-Side Encryption"},
        {p->table_class, "TableClass"},
        {p->deletion_protection, "DeletionProtection"},
        {p->disassociation_protection, "DisassociationProtection"},
        {p->replication_mode, "GlobalTableSettingsReplicationMode"},
    };
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        if (alone[i].given && n > 1)
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID
                                 "%s modification must be the only operation in the request",
                                 alone[i].what);
    }
    if (p->warm && p->gsi_create)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "Create global secondary index cannot be specified when "
                             "updating WarmThroughput");
    if (p->warm && n > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "WarmThroughput must be the only operation in the request");
    if (p->on_demand && n > 1 + p->billing)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "OnDemandThroughput can only be combined with BillingMode in "
                             "an UpdateTable request");
    if (p->stream && p->throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot modify stream status while updating table IOPS");
    if (p->gsi_create_or_delete && p->throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot create or delete index while updating table "
                             "IOPS");
    if (p->gsi_create_or_delete && p->stream)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "You cannot create or delete index while changing stream "
                             "status");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* GlobalSecondaryIndexUpdates on their own                                  */
/* ------------------------------------------------------------------------ */

static const char *gsi_update_index_name(const json_t *u)
{
    const char *actions[] = {"Update", "Create", "Delete"};
    for (size_t k = 0; k < 3; k++) {
        json_t *a = body_member(u, actions[k]);
        if (a) return body_member_str(a, "IndexName");
    }
    return NULL;
}

/* A Create's definition: keys defined, key schema, projection, throughput bounds. */
static int check_gsi_create(const json_t *c, const json_t *defs, const char *name,
                            struct ddb_error *err)
{
    if (!defs)
        return ddb_error_set(
            err, DDB_VALIDATION,
            TABLE_RULES_INVALID "AttributeDefinitions is not specified for index: %s", name);
    if (table_rules_keys_defined(body_member(c, "KeySchema"), defs, NULL, err) != 0) return -1;
    if (table_rules_gsi_key_schema(body_member(c, "KeySchema"), err) != 0) return -1;
    if (table_rules_projection(body_member(c, "Projection"), err) != 0) return -1;
    return table_rules_throughput_bounds(body_member(c, "ProvisionedThroughput"), name, err);
}

/* Entry i of list: one action, one entry per index, the action's own rules. */
static int check_gsi_update(const json_t *list, size_t i, const json_t *defs, struct ddb_error *err)
{
    const json_t *u = json_array_get(list, i), *up = body_member(u, "Update");
    int actions = !!up + !!body_member(u, "Create") + !!body_member(u, "Delete");
    const char *name = gsi_update_index_name(u);

    if (actions == 0)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "One of GlobalSecondaryIndexUpdate.Update, "
                                                 "GlobalSecondaryIndexUpdate.Create, "
                                                 "GlobalSecondaryIndexUpdate.Delete must not be "
                                                 "null");
    if (actions > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID "Only one global secondary index action is "
                                                 "allowed per GlobalSecondaryIndexUpdate object");
    for (size_t j = 0; j < i; j++) {
        if (str_eq(name, gsi_update_index_name(json_array_get(list, j))))
            return ddb_error_set(err, DDB_VALIDATION,
                                 TABLE_RULES_INVALID "Only one global secondary index update per "
                                                     "index is allowed simultaneously. Index: %s",
                                 name);
    }
    if (body_member(u, "Create") && check_gsi_create(body_member(u, "Create"), defs, name, err))
        return -1;
    /* [q DDB-TABLE-456]: before the table is looked up. */
    if (up && body_member(up, "WarmThroughput") &&
        !json_object_size(body_member(up, "WarmThroughput")))
        return ddb_error_set(err, DDB_VALIDATION,
                             TABLE_RULES_INVALID
                             "WarmThroughput must have at least one of ReadUnitsPerSecond or "
                             "WriteUnitsPerSecond specified for index: %s",
                             name);
    return 0;
}

/* GlobalSecondaryIndexUpdates entries on their own [d, q DDB-TABLE-159/160/162]. */
static int check_gsi_updates(const json_t *body, struct ddb_error *err)
{
    const json_t *list = body_member(body, "GlobalSecondaryIndexUpdates");
    const json_t *defs = body_member(body, "AttributeDefinitions");
    size_t i, online = 0;
    json_t *u;

    json_array_foreach(list, i, u)
    {
        if (check_gsi_update(list, i, defs, err) != 0) return -1;
        if (body_member(u, "Create") || body_member(u, "Delete")) online++;
    }
    /* Two online index builds in one call [q DDB-TABLE-159]. */
    if (online > 1)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Only 1 online index can be created or "
                             "deleted simultaneously per table");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* the plan                                                                  */
/* ------------------------------------------------------------------------ */

/* Which members of an OnDemandThroughput or WarmThroughput object were sent. */
static struct units_sent units_sent_of(const json_t *obj, const char *read, const char *write)
{
    struct units_sent sent = {
        .any = json_object_size(obj) > 0,
        .read = body_member(obj, read) != NULL,
        .write = body_member(obj, write) != NULL,
    };
    return sent;
}

static void decode_on_demand(const json_t *obj, struct on_demand_throughput *out,
                             struct units_sent *sent)
{
    wire_table_on_demand_from_json(obj, out);
    *sent = units_sent_of(obj, "MaxReadRequestUnits", "MaxWriteRequestUnits");
}

/* WarmThroughput members as Long values (a JSON real is truncated, as the rule
 * that they only grow has always read them). */
static void decode_warm(const json_t *obj, struct warm_throughput *out, struct units_sent *sent)
{
    out->read_per_s = body_member_int(obj, "ReadUnitsPerSecond");
    out->write_per_s = body_member_int(obj, "WriteUnitsPerSecond");
    *sent = units_sent_of(obj, "ReadUnitsPerSecond", "WriteUnitsPerSecond");
}

static void decode_gsi_update(const json_t *e, struct gsi_update *g)
{
    const json_t *c = body_member(e, "Create"), *up = body_member(e, "Update");

    if (c) {
        g->kind = GSI_UPDATE_CREATE;
        wire_table_index_from_json(c, true, &g->def);
        g->has_throughput = body_member(c, "ProvisionedThroughput") != NULL;
    } else if (up) {
        g->kind = GSI_UPDATE_UPDATE;
        g->def.name = xstrdup(body_member_str(up, "IndexName"));
        g->def.is_global = true;
        g->has_throughput = body_member(up, "ProvisionedThroughput") != NULL;
        wire_table_throughput_from_json(body_member(up, "ProvisionedThroughput"),
                                        &g->def.throughput);
        decode_on_demand(body_member(up, "OnDemandThroughput"), &g->def.on_demand, &g->on_demand);
        decode_warm(body_member(up, "WarmThroughput"), &g->def.warm, &g->warm);
    } else {
        g->kind = GSI_UPDATE_DELETE;
        g->def.name = xstrdup(body_member_str(body_member(e, "Delete"), "IndexName"));
        g->def.is_global = true;
    }
}

/* ReplicaUpdates entries: their actions, and the region of the first of
 * Create, Update, Delete, Disassociate (checked against the table by storage). */
static void decode_replica_updates(const json_t *list, struct table_update *u)
{
    static const char *const actions[] = {"Create", "Update", "Delete", "Disassociate"};
    static const unsigned bits[] = {REPLICA_CREATE, REPLICA_UPDATE, REPLICA_DELETE,
                                    REPLICA_DISASSOCIATE};
    size_t i;
    json_t *e;

    if (!json_array_size(list)) return;
    u->replica_updates = xcalloc(json_array_size(list), sizeof *u->replica_updates);
    json_array_foreach(list, i, e)
    {
        struct replica_update *r = &u->replica_updates[u->replica_update_count++];
        for (size_t k = 0; k < 4; k++) {
            const json_t *a = body_member(e, actions[k]);
            if (!a) continue;
            r->actions |= bits[k];
            if (!r->region) r->region = xstrdup_or_null(body_member_str(a, "RegionName"));
        }
    }
}

/* Decodes the optional settings of the (checked) body into u. */
static void decode_settings(const json_t *body, struct table_update *u)
{
    if (body_member(body, "BillingMode")) {
        u->has_billing = true;
        u->billing = body_member_is(body, "BillingMode", "PAY_PER_REQUEST")
                         ? BILLING_PAY_PER_REQUEST
                         : BILLING_PROVISIONED;
    }
    if (body_member(body, "ProvisionedThroughput")) {
        u->has_throughput = true;
        wire_table_throughput_from_json(body_member(body, "ProvisionedThroughput"), &u->throughput);
    }
    if (body_member(body, "StreamSpecification")) {
        u->has_stream = true;
        wire_table_stream_from_json(body_member(body, "StreamSpecification"), &u->stream);
    }
    if (body_member(body, "DeletionProtectionEnabled")) {
        u->has_deletion_protection = true;
        u->deletion_protection = json_is_true(body_member(body, "DeletionProtectionEnabled"));
    }
    if (body_member(body, "DisassociationProtectionEnabled")) {
        u->has_disassociation_protection = true;
        u->disassociation_protection =
            json_is_true(body_member(body, "DisassociationProtectionEnabled"));
    }
    u->replication_mode =
        xstrdup_or_null(body_member_str(body, "GlobalTableSettingsReplicationMode"));
    if (body_member(body, "TableClass")) {
        u->has_table_class = true;
        u->table_class = xstrdup(body_member_str(body, "TableClass"));
    }
    if (body_member(body, "SSESpecification")) {
        u->has_sse = true;
        wire_table_sse_from_json(body_member(body, "SSESpecification"), &u->sse);
    }
    decode_on_demand(body_member(body, "OnDemandThroughput"), &u->on_demand, &u->on_demand_sent);
    decode_warm(body_member(body, "WarmThroughput"), &u->warm, &u->warm_sent);
}

/* The one VectorIndexUpdates entry (NULL: none). */
static void decode_vector_update(const json_t *e, struct table_update *u)
{
    const json_t *del = body_member(e, "Delete");

    if (!e) return;
    u->has_vector_update = true;
    if (del) {
        u->vector_delete = true;
        u->vector.name = xstrdup(body_member_str(del, "IndexName"));
    } else {
        wire_vector_def_from_json(body_member(e, "Create"), &u->vector);
    }
}

/* Fills the storage request from the (checked) body: typed values only. */
static void decode_table_update(const json_t *body, struct table_update *u)
{
    const json_t *list = body_member(body, "GlobalSecondaryIndexUpdates");
    size_t i;
    json_t *e;

    u->name = xstrdup(body_member_str(body, "TableName"));
    decode_settings(body, u);
    if (body_member(body, "AttributeDefinitions"))
        wire_table_attr_defs_from_json(body_member(body, "AttributeDefinitions"), &u->attr_defs,
                                       &u->attr_def_count);
    decode_replica_updates(body_member(body, "ReplicaUpdates"), u);
    decode_vector_update(json_array_get(body_member(body, "VectorIndexUpdates"), 0), u);
    if (!json_array_size(list)) return;
    u->gsi_updates = xcalloc(json_array_size(list), sizeof *u->gsi_updates);
    json_array_foreach(list, i, e)
    {
        decode_gsi_update(e, &u->gsi_updates[u->gsi_update_count++]);
    }
}

/* ------------------------------------------------------------------------ */
/* the handler                                                               */
/* ------------------------------------------------------------------------ */

/*
 * UpdateTable: the request's own checks, the plan, db_update_table (which
 * checks the plan against the table and applies it under one lock),
 * {"TableDescription": ...}.
 */
int op_update_table(struct api_request *rq)
{
    struct update_parts parts;
    struct table_update update;
    struct table_desc desc;
    int rc = -1;

    memset(&update, 0, sizeof update);
    memset(&desc, 0, sizeof desc);
    find_update_parts(rq->body, &parts);
    if (table_rules_key_names_without_nul(rq->body, &rq->err) != 0) goto out;
    if (check_update_combination(rq->body, &parts, &rq->err) != 0) goto out;
    if (table_rules_throughput_bounds(body_member(rq->body, "ProvisionedThroughput"), NULL,
                                      &rq->err) != 0)
        goto out;
    if (table_rules_stream(body_member(rq->body, "StreamSpecification"), false, &rq->err) != 0)
        goto out;
    if (table_rules_sse(body_member(rq->body, "SSESpecification"), &rq->err) != 0) goto out;
    if (table_rules_table_class(rq->body, &rq->err) != 0) goto out;
    if (table_rules_global_settings(rq->body, &rq->err) != 0) goto out;
    if (check_gsi_updates(rq->body, &rq->err) != 0) goto out;
    if (vector_rules_check_updates(rq->body, &rq->err) != 0) goto out;
    if (parts.vector_updates && parts.gsi_online_change && vector_rules_online_limit(&rq->err) != 0)
        goto out;
    decode_table_update(rq->body, &update);
    if (db_update_table(rq->db, &rq->scope, &update, &desc, &rq->err) != 0) goto out;
    rq->reply = json_object();
    json_object_set_new(rq->reply, "TableDescription", wire_table_desc_to_json(&desc));
    rc = 0;
out:
    table_update_clear(&update);
    table_desc_clear(&desc);
    return rc;
}
