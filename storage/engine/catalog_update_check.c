/*
 * catalog_update_check.c - every rule of UpdateTable that depends on the
 * table, checked under the exclusive lock before anything changes.
 *
 * api/ (op_update_table.c) has already refused what is wrong with the request
 * on its own; what is left needs the table as it is now, so it runs here, in
 * the critical section that then applies the change (catalog_update.c), and a
 * concurrent UpdateTable can no longer change the table between the check and
 * the change. The order is AWS's precedence, which the conformance tests pin:
 *
 *   1. the table exists (prepare, catalog_update.c);
 *   2. rules of the request AWS checks only once the table is found: an out of
 *      bounds index throughput, ReplicaUpdates;
 *   3. rules of the billing mode the table has or gets: which throughput
 *      members may be sent, OnDemandThroughput, WarmThroughput only grows,
 *      SSE already at its default;
 *   4. the table is ACTIVE (ResourceInUseException);
 *   5. the change changes something: throughput, stream, indexes (with the
 *      one-online-index-change limit and the GSI quota).
 *
 * Rules 2 and 3 were checked against a DescribeTable snapshot before (see
 * git history), so they see the table as DescribeTable reports it: GSIs still
 * DELETING count as indexes, and the WarmThroughput compared with is the
 * described one. Sources are cited as in api/ops/op_update_table.c: [d]
 * dynalite's recorded tests, [q] the ack-api-quirks live-service catalogue.
 */
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/catalog.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define INVALID "One or more parameter values were invalid: "

static bool str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ------------------------------------------------------------------------ */
/* the table as DescribeTable reports it                                     */
/* ------------------------------------------------------------------------ */

/* GSI j of those DescribeTable lists at now_ms (the table's, then the deleted
 * ones still DELETING), or NULL for a deleted one whose time has come; j runs
 * below gsi_count + deleting_gsi_count. */
static const struct index_def *described_gsi(const struct table *t, int64_t now_ms, size_t j)
{
    if (j < t->def.gsi_count) return &t->def.gsis[j];
    j -= t->def.gsi_count;
    return now_ms < t->deleting_gsis[j].until_ms ? &t->deleting_gsis[j].def : NULL;
}

static size_t described_gsi_slots(const struct table *t)
{
    return t->def.gsi_count + t->deleting_gsi_count;
}

/* DescribeTable lists an index (GSI or LSI) named name. */
static bool described_index(const struct update_plan *p, const char *name)
{
    for (size_t j = 0; j < described_gsi_slots(p->t); j++) {
        const struct index_def *g = described_gsi(p->t, p->now_ms, j);
        if (g && str_eq(g->name, name)) return true;
    }
    for (size_t i = 0; i < p->t->def.lsi_count; i++) {
        if (str_eq(p->t->def.lsis[i].name, name)) return true;
    }
    return false;
}

/* The WarmThroughput DescribeTable reports for GSI index, or for the table
 * when index is NULL or names no GSI; a CREATING table's GSIs report none. */
static struct warm_throughput current_warm(const struct update_plan *p, const char *index)
{
    const struct table *t = p->t;
    const struct index_def *owner = NULL;
    enum table_status status =
        table_is_deleting(t) ? TABLE_DELETING : table_status_at(t, p->now_ms);

    for (size_t j = 0; index && j < described_gsi_slots(t); j++) {
        const struct index_def *g = described_gsi(t, p->now_ms, j);
        if (g && str_eq(g->name, index)) owner = g;
    }
    if (!owner) return throughput_warm_described(t->def.billing, &t->def.throughput, &t->def.warm);
    if (status == TABLE_CREATING) return (struct warm_throughput){0, 0};
    return throughput_warm_described(t->def.billing, &owner->throughput, &owner->warm);
}

/* ------------------------------------------------------------------------ */
/* 2. rules of the request that AWS checks once the table is found           */
/* ------------------------------------------------------------------------ */

/*
 * Out-of-bounds throughput in a GSI Update is checked once the table is known
 * to exist [d: "should return NotFoundException for high index
 * ReadCapacityUnits when table does not exist"]; for an index the table does
 * not have AWS answers "Action Blocked: IndexUpdate" [d: "...when index does
 * not exist"]. The first such Update decides.
 */
static int check_gsi_update_bounds(const struct update_plan *p, struct ddb_error *err)
{
    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        const struct gsi_update *g = &p->u->gsi_updates[i];
        const struct throughput *pt = &g->def.throughput;
        if (g->kind != GSI_UPDATE_UPDATE || !g->has_throughput ||
            (pt->read_units <= DDB_MAX_CAPACITY_UNITS && pt->write_units <= DDB_MAX_CAPACITY_UNITS))
            continue;
        if (!described_index(p, g->def.name))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "This operation cannot be performed with given input values. "
                                 "Please contact DynamoDB service team for more info: Action "
                                 "Blocked: IndexUpdate");
        return throughput_check_bounds(pt, g->def.name, err);
    }
    return 0;
}

/* ReplicaUpdates' own rules: each entry has an action, one kind of action per
 * request, one Create or Delete per request [q DDB-TABLE-442]. */
static int check_replica_actions(const struct table_update *u, struct ddb_error *err)
{
    unsigned seen = 0;
    size_t creates_deletes = 0;

    for (size_t i = 0; i < u->replica_update_count; i++) {
        unsigned a = u->replica_updates[i].actions;
        seen |= a;
        creates_deletes += !!(a & REPLICA_CREATE) + !!(a & REPLICA_DELETE);
        if (!a)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "There are no actions specified in the Replica Update Action of "
                                 "the request.");
    }
    if (seen & (seen - 1)) /* more than one bit */
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update table operation with more than one type of replica actions "
                             "not allowed.");
    if (creates_deletes > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update table operation with more than one create or delete replica "
                             "actions not allowed");
    /* "A Disassociate action must be the only replica update in the request"
     * (the model's documentation; text ours). */
    if ((seen & REPLICA_DISASSOCIATE) && u->replica_update_count > 1)
        return ddb_error_set(err, DDB_VALIDATION,
                             "A Disassociate action must be the only replica update in the "
                             "request");
    return 0;
}

/*
 * ReplicaUpdates (global tables version 2019.11.21). The actions' own rules
 * come first [q DDB-TABLE-442]; then, since this emulator serves one region
 * and keeps no replicas, creating a replica in another region gets the answer
 * for a region global tables do not support, and updating or deleting one
 * the answer for a region that is not a replica (docs/differences.md): the
 * first entry decides.
 */
static int check_replica_updates(const struct update_plan *p, struct ddb_error *err)
{
    const struct replica_update *r = p->u->replica_updates;
    const char *region = p->scope->region;

    if (!p->u->replica_update_count) return 0;
    if (check_replica_actions(p->u, err) != 0) return -1;
    /* Disassociating: the table is in no global table, whatever the region. */
    if (r->actions & REPLICA_DISASSOCIATE)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Update global table operation failed because one or more replicas "
                             "were not part of the global table. Please retry the request "
                             "without these replicas: [%s].",
                             r->region);
    if (str_eq(r->region, region) && !(r->actions & REPLICA_UPDATE))
        return ddb_error_set(err, DDB_VALIDATION,
                             "Cannot add or delete the local region through ReplicaUpdates. "
                             "Use CreateTable or DeleteTable instead.");
    if (r->actions & REPLICA_CREATE)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Region %s is not supported. The latest version of global tables "
                             "are only supported in the following regions: [%s]",
                             r->region, region);
    return ddb_error_set(err, DDB_VALIDATION,
                         "Update global table operation failed because one or more replicas "
                         "were not part of the global table. Please retry the request "
                         "without these replicas: [%s].",
                         r->region);
}

/* ------------------------------------------------------------------------ */
/* 3. rules of the billing mode the table has or gets [q DDB-TABLE-152/442]  */
/* ------------------------------------------------------------------------ */

/* An Update entry for GSI name sends ProvisionedThroughput. */
static bool gsi_update_sets_throughput(const struct table_update *u, const char *name)
{
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        const struct gsi_update *g = &u->gsi_updates[i];
        if (g->kind == GSI_UPDATE_UPDATE && str_eq(g->def.name, name) && g->has_throughput)
            return true;
    }
    return false;
}

/* The table's ProvisionedThroughput against its billing mode; switching to
 * PROVISIONED needs throughput for the table and every GSI described. */
static int check_table_billing(const struct update_plan *p, struct ddb_error *err)
{
    const struct table_update *u = p->u;
    const struct table *t = p->t;
    bool to_provisioned = u->has_billing && u->billing == BILLING_PROVISIONED &&
                          t->def.billing == BILLING_PAY_PER_REQUEST;

    if (p->on_demand && u->has_throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Neither ReadCapacityUnits nor WriteCapacityUnits can be "
                                     "specified when BillingMode is PAY_PER_REQUEST");
    if (to_provisioned && !u->has_throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "ProvisionedThroughput must be specified when BillingMode is "
                                     "PROVISIONED");
    for (size_t j = 0; to_provisioned && j < described_gsi_slots(t); j++) {
        const struct index_def *g = described_gsi(t, p->now_ms, j);
        if (g && !gsi_update_sets_throughput(u, g->name))
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "ProvisionedThroughput must be specified for index: %s",
                                 g->name);
    }
    return 0;
}

/* One GlobalSecondaryIndexUpdates entry against the billing mode. */
static int check_gsi_billing(const struct update_plan *p, const struct gsi_update *g,
                             struct ddb_error *err)
{
    const char *name = g->def.name;

    if (g->kind == GSI_UPDATE_UPDATE) {
        struct warm_throughput now;
        /* [q DDB-TABLE-456]: on demand, an index Update changes OnDemandThroughput or
         * WarmThroughput (an empty one counts as absent), nothing else. */
        if (p->on_demand && (g->has_throughput || (!g->on_demand.any && !g->warm.any)))
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "The only Updates for index: %s when TableThroughputMode "
                                         "is PAY_PER_REQUEST can be to OnDemandThroughput, "
                                         "WarmThroughput",
                                 name);
        if (throughput_check_on_demand(&g->def.on_demand, &g->on_demand, p->on_demand, true, name,
                                       err) != 0)
            return -1;
        now = current_warm(p, name);
        return throughput_check_warm_growth(&g->def.warm, &g->warm, &now, name, err);
    }
    if (g->kind == GSI_UPDATE_CREATE && p->on_demand && g->has_throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Neither ReadCapacityUnits nor WriteCapacityUnits can be "
                                     "specified for index: %s when BillingMode is PAY_PER_REQUEST",
                             name);
    if (g->kind == GSI_UPDATE_CREATE && !p->on_demand && !g->has_throughput)
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Both ReadCapacityUnits and WriteCapacityUnits must be "
                                     "specified for index: %s",
                             name);
    return 0;
}

static int check_billing_rules(const struct update_plan *p, struct ddb_error *err)
{
    const struct table_update *u = p->u;
    struct warm_throughput now;

    if (check_table_billing(p, err) != 0) return -1;
    for (size_t i = 0; i < u->gsi_update_count; i++) {
        if (check_gsi_billing(p, &u->gsi_updates[i], err) != 0) return -1;
    }
    if (throughput_check_on_demand(&u->on_demand, &u->on_demand_sent, p->on_demand, true, NULL,
                                   err) != 0)
        return -1;
    now = current_warm(p, NULL);
    if (throughput_check_warm_growth(&u->warm, &u->warm_sent, &now, NULL, err) != 0) return -1;
    if (catalog_vector_billing(p, err) != 0) return -1;
    /* Asking for the default key on a table that already uses it [q DDB-TABLE-442]. */
    if (u->has_sse && !p->t->def.sse.enabled && !u->sse.enabled)
        return ddb_error_set(err, DDB_VALIDATION, INVALID "Table is already encrypted by default");
    return 0;
}

/* ------------------------------------------------------------------------ */
/* 5. the change changes something                                           */
/* ------------------------------------------------------------------------ */

/* Checked against dynalite's recorded AWS responses (actions/updateTable.js). */
static int check_throughput_change(const struct update_plan *p, struct ddb_error *err)
{
    const struct throughput *cur = &p->t->def.throughput, *req = &p->u->throughput;

    if (req->read_units != cur->read_units || req->write_units != cur->write_units ||
        p->switched_billing)
        return 0;
    return ddb_error_set(
        err, DDB_VALIDATION,
        "The provisioned throughput for the table will not change. The requested value equals "
        "the current value. Current ReadCapacityUnits provisioned for the table: %lld. "
        "Requested ReadCapacityUnits: %lld. Current WriteCapacityUnits provisioned for the "
        "table: %lld. Requested WriteCapacityUnits: %lld. Refer to the Amazon DynamoDB "
        "Developer Guide for current limits and how to request higher limits.",
        (long long) cur->read_units, (long long) req->read_units, (long long) cur->write_units,
        (long long) req->write_units);
}

static int check_stream_change(const struct table *t, const struct table_update *u,
                               struct ddb_error *err)
{
    /* Texts as recorded from AWS for no-op stream changes. */
    if (u->stream.enabled && t->def.stream.enabled)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Table already has an enabled stream: TableName: %s", t->def.name);
    if (!u->stream.enabled && !t->def.stream.enabled)
        return ddb_error_set(err, DDB_VALIDATION, "Table has no stream to disable: TableName: %s",
                             t->def.name);
    return 0;
}

/* An index Create or Delete is running (one at a time per table). */
static bool index_change_running(const struct table *t, int64_t now_ms)
{
    for (size_t i = 0; i < t->index_count; i++) {
        enum index_status s = index_status_at(&t->indexes[i], now_ms);
        if (s == INDEX_CREATING || s == INDEX_DELETING) return true;
    }
    for (size_t i = 0; i < t->vector_count; i++) {
        if (vector_index_status_at(&t->vectors[i], now_ms) != INDEX_ACTIVE) return true;
    }
    return catalog_gsi_deleting(t, now_ms);
}

static int online_index_limit(struct ddb_error *err)
{
    /* ack-api-quirks DDB-TABLE-159: also while another index is CREATING or DELETING. */
    return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                         "Subscriber limit exceeded: Only 1 online index can be created or "
                         "deleted simultaneously per table");
}

/* Appends "Schema:[SchemaElement: key{a:S:HASH}, ...]" for a key schema to buf. */
static void describe_schema(const struct key_schema *k, const struct attr_def *defs,
                            size_t def_count, char *buf, size_t cap)
{
    size_t len = strlen(buf);
    len += (size_t) snprintf(buf + len, len < cap ? cap - len : 0, "Schema:[");
    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        bool hash = i < k->hash_count;
        const char *name = hash ? k->hash_names[i] : k->range_names[i - k->hash_count];
        enum value_type type = VALUE_S;
        catalog_attr_def_type(defs, def_count, name, &type);
        len += (size_t) snprintf(buf + len, len < cap ? cap - len : 0,
                                 "%sSchemaElement: key{%s:%s:%s}", i ? ", " : "", name,
                                 value_type_name(type), hash ? "HASH" : "RANGE");
    }
    snprintf(buf + len, len < cap ? cap - len : 0, "]");
}

/* The key schema of the table or index that uses attribute name. */
static const struct key_schema *schema_using(const struct table *t, const char *name)
{
    if (key_schema_has(&t->def.key, name)) return &t->def.key;
    for (size_t i = 0; i < t->def.gsi_count; i++) {
        if (key_schema_has(&t->def.gsis[i].key, name)) return &t->def.gsis[i].key;
    }
    for (size_t i = 0; i < t->def.lsi_count; i++) {
        if (key_schema_has(&t->def.lsis[i].key, name)) return &t->def.lsis[i].key;
    }
    return &t->def.key;
}

/* No key attribute of def redefined with another type (the text scylla
 * test_gsi_updatetable.py::test_gsi_key_type_conflict_on_update records from AWS). */
static int check_gsi_key_types(const struct table *t, const struct table_update *u,
                               const struct index_def *def, struct ddb_error *err)
{
    const struct key_schema *k = &def->key;

    for (size_t i = 0; i < k->hash_count + k->range_count; i++) {
        const char *name = i < k->hash_count ? k->hash_names[i] : k->range_names[i - k->hash_count];
        enum value_type wanted = VALUE_S, existing = VALUE_S;
        char existing_schema[1024] = "", new_schema[1024] = "";
        bool found = catalog_attr_def_type(u->attr_defs, u->attr_def_count, name, &wanted);
        assert(found); /* api/ checked that AttributeDefinitions covers the key */
        (void) found;
        /* A live vector index's attribute holds lists, never a key's scalar
         * (spec-24: dynoxide's capture of AWS's text). */
        for (size_t v = 0; v < t->def.vector_count; v++) {
            if (strcmp(t->def.vectors[v].attribute, name) != 0) continue;
            describe_schema(k, u->attr_defs, u->attr_def_count, new_schema, sizeof new_schema);
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "Attributes cannot be redefined. Please check that your "
                                         "attribute has the same type as previously defined. "
                                         "Existing schema: VectorIndexSchema:[VectorAttribute: "
                                         "key{%s:L:%lld}] New schema: %s",
                                 name, (long long) t->def.vectors[v].dimensions, new_schema);
        }
        if (!table_def_attr_type(&t->def, name, &existing) || existing == wanted) continue;
        describe_schema(schema_using(t, name), t->def.attr_defs, t->def.attr_def_count,
                        existing_schema, sizeof existing_schema);
        describe_schema(k, u->attr_defs, u->attr_def_count, new_schema, sizeof new_schema);
        return ddb_error_set(err, DDB_VALIDATION,
                             INVALID "Attributes cannot be redefined. Please check that your "
                                     "attribute has the same type as previously defined. "
                                     "Existing schema: %s New schema: %s",
                             existing_schema, new_schema);
    }
    return 0;
}

/*
 * A Create: the name is new among the table's GSIs and LSIs (scylla
 * test_gsi_updatetable.py::test_gsi_backfill_with_lsi, against AWS), no other
 * index change is running, the GSI quota (LimitExceededException via
 * UpdateTable, ack-api-quirks DDB-TABLE-169), no key attribute redefined.
 */
static int check_gsi_create(const struct update_plan *p, const struct index_def *def,
                            struct ddb_error *err)
{
    const struct table *t = p->t;

    if (table_def_find_index(&t->def, def->name))
        return ddb_error_set(err, DDB_VALIDATION, INVALID "Index %s already exists in table %s",
                             def->name, t->def.name);
    /* A vector index's name (spec-24 2.3, dynoxide's capture). */
    if (table_def_find_vector(&t->def, def->name))
        return ddb_error_set(err, DDB_VALIDATION,
                             "Attempting to create an index which already "
                             "exists");
    if (index_change_running(t, p->now_ms)) return online_index_limit(err);
    if (t->def.gsi_count >= DDB_MAX_GSIS)
        return ddb_error_set(err, DDB_LIMIT_EXCEEDED,
                             "Subscriber limit exceeded: Number of global secondary indexes "
                             "exceeds per-table limit of %d",
                             DDB_MAX_GSIS);
    return check_gsi_key_types(t, p->u, def, err);
}

/* An Update of a GSI's throughput changes it (ack-api-quirks DDB-TABLE-164, live
 * service: the table's wording for an index). */
static int check_gsi_throughput_change(const struct update_plan *p, const struct gsi_update *g,
                                       const struct table_index *idx, struct ddb_error *err)
{
    const struct throughput *cur = &idx->def->throughput, *req = &g->def.throughput;
    const char *name = g->def.name;

    /* On demand only OnDemandThroughput/WarmThroughput can change (checked above),
     * and re-sending them is accepted (ack-api-quirks DDB-TABLE-135); an Update
     * of only those carries no throughput. */
    if (p->on_demand || !req->read_units) return 0;
    if (req->read_units != cur->read_units || req->write_units != cur->write_units ||
        p->switched_billing)
        return 0;
    return ddb_error_set(
        err, DDB_VALIDATION,
        "The provisioned throughput for the index %s will not change. The requested "
        "value equals the current value. Current ReadCapacityUnits provisioned for "
        "index %s: %lld. Requested ReadCapacityUnits: %lld. Current "
        "WriteCapacityUnits provisioned for index %s: %lld. Requested "
        "WriteCapacityUnits: %lld. Refer to the Amazon DynamoDB Developer Guide for "
        "current limits and how to request higher limits.",
        name, name, (long long) cur->read_units, (long long) req->read_units, name,
        (long long) cur->write_units, (long long) req->write_units);
}

/* Every GlobalSecondaryIndexUpdates entry against the table's indexes. */
static int check_gsi_changes(const struct update_plan *p, struct ddb_error *err)
{
    const struct table *t = p->t;

    for (size_t i = 0; i < p->u->gsi_update_count; i++) {
        const struct gsi_update *g = &p->u->gsi_updates[i];
        const struct table_index *idx = NULL;
        if (g->kind == GSI_UPDATE_CREATE) {
            if (check_gsi_create(p, &g->def, err) != 0) return -1;
            continue;
        }
        /* An LSI name is answered like an unknown index (see docs/differences.md). */
        if (!(idx = catalog_find_gsi(t, g->def.name)))
            return ddb_error_index_not_found(err, g->def.name, t->def.name);
        /* Deleting the index being built is admitted once it backfills (DDB-TABLE-149). */
        if (g->kind == GSI_UPDATE_DELETE && index_change_running(t, p->now_ms) &&
            index_status_at(idx, p->now_ms) != INDEX_CREATING)
            return online_index_limit(err);
        if (g->kind == GSI_UPDATE_UPDATE && check_gsi_throughput_change(p, g, idx, err) != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* the order                                                                 */
/* ------------------------------------------------------------------------ */

int catalog_update_validate(const struct update_plan *p, struct ddb_error *err)
{
    assert_lock_exclusive();
    if (check_gsi_update_bounds(p, err) != 0) return -1;
    if (check_replica_updates(p, err) != 0) return -1;
    if (check_billing_rules(p, err) != 0) return -1;
    if (catalog_check_settled(p->t, p->now_ms, err) != 0) return -1;
    if (p->u->has_throughput && check_throughput_change(p, err) != 0) return -1;
    if (p->u->has_stream && check_stream_change(p->t, p->u, err) != 0) return -1;
    if (check_gsi_changes(p, err) != 0) return -1;
    return catalog_vector_change(p, index_change_running(p->t, p->now_ms), err);
}
