/*
 * test_update_table.c - two UpdateTable calls racing on one table end as if
 * one had run after the other.
 *
 * db_update_table checks a request against the table and applies it in one
 * critical section (catalog_update.c), so a concurrent UpdateTable can never
 * slip between the check and the change. Each scenario below starts two
 * threads on a barrier, each calling db_update_table once on the same table,
 * many times over, and checks that every round ends in one of the outcomes a
 * serial order gives - the winner's answer, the loser's exact error (or its
 * success) and the table DescribeTable then shows - never in a state that
 * either call alone would have refused (e.g. a PROVISIONED table with a GSI
 * that has no throughput, or two GSIs created at once).
 *
 * The scenarios are rows of a table (jq style): adding a case is adding a row.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_scope scope = {"test", "us-east-1"};

#define TABLE "t"

static void add_attr(struct attr_def **defs, size_t *count, const char *name)
{
    *defs = xrealloc(*defs, sizeof **defs * (*count + 1));
    (*defs)[(*count)++] = (struct attr_def){xstrdup(name), VALUE_S};
}

/* ------------------------------------------------------------------------ */
/* the requests                                                              */
/* ------------------------------------------------------------------------ */

enum request {
    CREATE_G1,      /* GSI g1 on a, no throughput (an on-demand table's Create) */
    CREATE_G2,      /* GSI g2 on b, no throughput */
    CREATE_G_UNITS, /* GSI g on a with ProvisionedThroughput 5/5 */
    CREATE_G,       /* GSI g on a, no throughput */
    TO_PROVISIONED, /* BillingMode PROVISIONED with ProvisionedThroughput 5/5 */
    TO_ON_DEMAND,   /* BillingMode PAY_PER_REQUEST */
};

static void gsi_create(struct table_update *u, const char *index, const char *attr, bool units)
{
    struct gsi_update *g;

    add_attr(&u->attr_defs, &u->attr_def_count, attr);
    u->gsi_updates = calloc(1, sizeof *u->gsi_updates);
    u->gsi_update_count = 1;
    g = &u->gsi_updates[0];
    g->kind = GSI_UPDATE_CREATE;
    g->def.name = xstrdup(index);
    g->def.is_global = true;
    g->def.key.hash_names[g->def.key.hash_count++] = xstrdup(attr);
    g->def.projection.type = PROJECTION_ALL;
    if (units) {
        g->has_throughput = true;
        g->def.throughput = (struct throughput){5, 5};
    }
}

static void make_request(enum request r, struct table_update *u)
{
    memset(u, 0, sizeof *u);
    u->name = xstrdup(TABLE);
    switch (r) {
    case CREATE_G1: gsi_create(u, "g1", "a", false); break;
    case CREATE_G2: gsi_create(u, "g2", "b", false); break;
    case CREATE_G_UNITS: gsi_create(u, "g", "a", true); break;
    case CREATE_G: gsi_create(u, "g", "a", false); break;
    case TO_PROVISIONED:
        u->has_billing = true;
        u->billing = BILLING_PROVISIONED;
        u->has_throughput = true;
        u->throughput = (struct throughput){5, 5};
        break;
    case TO_ON_DEMAND:
        u->has_billing = true;
        u->billing = BILLING_PAY_PER_REQUEST;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* the table                                                                 */
/* ------------------------------------------------------------------------ */

static void put_row(struct db *db, int i)
{
    struct value m;
    char pk[32];

    snprintf(pk, sizeof pk, "p%d", i);
    value_init_map(&m);
    set_s(&m, "pk", pk);
    set_s(&m, "a", i % 2 ? "x" : "y");
    set_s(&m, "b", i % 3 ? "x" : "z");
    put_ok(db, &scope, TABLE, &m);
}

/* An engine holding table "t" (pk S) with rows items, ACTIVE. */
static struct db *new_db(bool delay, enum billing_mode billing, int rows)
{
    struct db *db = db_new();
    struct table_def def;

    db_set_delay_transient(db, delay);
    def_init(&def, TABLE);
    def_add_key(&def, "pk", VALUE_S, true);
    def.billing = billing;
    if (billing == BILLING_PROVISIONED) def.throughput = (struct throughput){5, 5};
    create_table_ok(db, &scope, &def);
    if (delay) db_clock_advance(db, DDB_DELAY_TABLE_CREATING_MS + 1000); /* ACTIVE */
    for (int i = 0; i < rows; i++)
        put_row(db, i);
    return db;
}

/* "BILLING r/w TABLE-STATUS [gsi:STATUS:r/w ...]" from DescribeTable. */
static void describe_state(struct db *db, char *buf, size_t cap)
{
    struct table_desc d;
    struct ddb_error err = {0};
    size_t len;

    memset(&d, 0, sizeof d);
    CHECK_INT_EQ(db_describe_table(db, &scope, TABLE, &d, &err), 0);
    len = (size_t) snprintf(buf, cap, "%s %lld/%lld %s [", billing_mode_name(d.def.billing),
                            (long long) d.def.throughput.read_units,
                            (long long) d.def.throughput.write_units, table_status_name(d.status));
    for (size_t i = 0; i < d.def.gsi_count && len < cap; i++)
        len += (size_t) snprintf(buf + len, cap - len, "%s%s:%s:%lld/%lld", i ? " " : "",
                                 d.def.gsis[i].name, index_status_name(d.gsi_descs[i].status),
                                 (long long) d.def.gsis[i].throughput.read_units,
                                 (long long) d.def.gsis[i].throughput.write_units);
    if (len < cap) snprintf(buf + len, cap - len, "]");
    table_desc_clear(&d);
}

/* ------------------------------------------------------------------------ */
/* the race                                                                  */
/* ------------------------------------------------------------------------ */

struct racer {
    struct db *db;
    const struct table_update *u;
    pthread_barrier_t *go;
    unsigned spin; /* a random head start for the other thread, so both orders happen */
    int rc;
    struct ddb_error err;
};

static uint64_t rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned) (rng % n);
}

static void *race(void *arg)
{
    struct racer *r = arg;
    struct table_desc desc;

    memset(&desc, 0, sizeof desc);
    pthread_barrier_wait(r->go);
    for (volatile unsigned i = 0; i < r->spin; i++)
        ;
    r->rc = db_update_table(r->db, &scope, r->u, &desc, &r->err);
    table_desc_clear(&desc);
    return NULL;
}

/* What one call answered: "OK", or the error's type and message. */
static void answer_of(const struct racer *r, char *buf, size_t cap)
{
    if (r->rc == 0)
        snprintf(buf, cap, "OK");
    else
        snprintf(buf, cap, "%s: %s", strrchr(ddb_error_type(r->err.code), '#') + 1,
                 r->err.message ? r->err.message : "");
}

/* ------------------------------------------------------------------------ */
/* the scenarios                                                             */
/* ------------------------------------------------------------------------ */

#define IN_USE                                                                                     \
    "ResourceInUseException: Attempt to change a resource which is still in use: Table is being "  \
    "updated: t"
#define ONE_ONLINE_INDEX                                                                           \
    "LimitExceededException: Subscriber limit exceeded: Only 1 online index can be created or "    \
    "deleted simultaneously per table"
#define INVALID "ValidationException: One or more parameter values were invalid: "

/* One outcome a serial order gives: each call's answer, then the table. */
struct outcome {
    const char *a, *b, *state;
};

struct scenario {
    const char *name;
    bool delay; /* --delay-transient-statuses */
    enum billing_mode billing;
    int rows;
    enum request a, b;
    int rounds;
    struct outcome allowed[4];
};

static const struct scenario scenarios[] = {
    /* The first Create leaves the table UPDATING (and its index CREATING) for
     * seconds, as on AWS: the second call is refused, whichever it is. */
    {"two GSI creates, statuses delayed",
     true,
     BILLING_PAY_PER_REQUEST,
     0,
     CREATE_G1,
     CREATE_G2,
     200,
     {{"OK", IN_USE, "PAY_PER_REQUEST 0/0 UPDATING [g1:CREATING:0/0]"},
      {IN_USE, "OK", "PAY_PER_REQUEST 0/0 UPDATING [g2:CREATING:0/0]"}}},
    /* Without delays the first index is CREATING while it backfills (three
     * steps here): a Create then is refused with LimitExceededException; one that
     * comes after the backfill succeeds, as it would after the first call. */
    {"two GSI creates on a table with rows",
     false,
     BILLING_PAY_PER_REQUEST,
     3000,
     CREATE_G1,
     CREATE_G2,
     30,
     {{"OK", ONE_ONLINE_INDEX, "PAY_PER_REQUEST 0/0 ACTIVE [g1:ACTIVE:0/0]"},
      {ONE_ONLINE_INDEX, "OK", "PAY_PER_REQUEST 0/0 ACTIVE [g2:ACTIVE:0/0]"},
      {"OK", "OK", "PAY_PER_REQUEST 0/0 ACTIVE [g1:ACTIVE:0/0 g2:ACTIVE:0/0]"},
      {"OK", "OK", "PAY_PER_REQUEST 0/0 ACTIVE [g2:ACTIVE:0/0 g1:ACTIVE:0/0]"}}},
    /* A GSI without throughput suits only an on-demand table; a PROVISIONED
     * table needs throughput for each GSI. Either order refuses the second. */
    {"GSI create vs switch to PROVISIONED",
     false,
     BILLING_PAY_PER_REQUEST,
     0,
     CREATE_G,
     TO_PROVISIONED,
     400,
     {{"OK", INVALID "ProvisionedThroughput must be specified for index: g",
       "PAY_PER_REQUEST 0/0 ACTIVE [g:ACTIVE:0/0]"},
      {INVALID "Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: g", "OK",
       "PROVISIONED 5/5 ACTIVE []"}}},
    /* The same with the statuses delayed: the billing rules come before the
     * table's status (ResourceInUseException), so the loser gets the same
     * ValidationException while the table is UPDATING. */
    {"GSI create vs switch to PROVISIONED, statuses delayed",
     true,
     BILLING_PAY_PER_REQUEST,
     0,
     CREATE_G,
     TO_PROVISIONED,
     200,
     {{"OK", INVALID "ProvisionedThroughput must be specified for index: g",
       "PAY_PER_REQUEST 0/0 UPDATING [g:CREATING:0/0]"},
      {INVALID "Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: g", "OK",
       "PROVISIONED 5/5 UPDATING []"}}},
    /* A GSI with throughput suits only a provisioned table: after the switch
     * it is refused; before it, the switch zeroes its throughput. */
    {"GSI create with throughput vs switch to PAY_PER_REQUEST",
     false,
     BILLING_PROVISIONED,
     0,
     CREATE_G_UNITS,
     TO_ON_DEMAND,
     400,
     {{"OK", "OK", "PAY_PER_REQUEST 0/0 ACTIVE [g:ACTIVE:0/0]"},
      {INVALID "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: g "
               "when BillingMode is PAY_PER_REQUEST",
       "OK", "PAY_PER_REQUEST 0/0 ACTIVE []"}}},
};

/* One round: a fresh table, the two calls at once; which allowed outcome it
 * ended in, or -1 (printed). */
static int run_round(const struct scenario *s, const struct table_update *a,
                     const struct table_update *b, bool print)
{
    struct db *db = new_db(s->delay, s->billing, s->rows);
    pthread_barrier_t go;
    struct racer r[2] = {{db, a, &go, rnd(20000), 0, {0}}, {db, b, &go, rnd(20000), 0, {0}}};
    pthread_t th[2];
    char answer[2][512], state[512];
    int found = -1;

    pthread_barrier_init(&go, NULL, 2);
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, race, &r[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < 2; i++) {
        answer_of(&r[i], answer[i], sizeof answer[i]);
        ddb_error_clear(&r[i].err);
    }
    describe_state(db, state, sizeof state);
    for (int k = 0; k < 4 && s->allowed[k].a && found < 0; k++) {
        const struct outcome *o = &s->allowed[k];
        if (!strcmp(answer[0], o->a) && !strcmp(answer[1], o->b) && !strcmp(state, o->state))
            found = k;
    }
    if (found < 0 && print)
        fprintf(stderr, "%s: no serial order gives\n  A: %s\n  B: %s\n  table: %s\n", s->name,
                answer[0], answer[1], state);
    db_free(db);
    return found;
}

static void run_scenario(const struct scenario *s)
{
    struct table_update a, b;
    int seen[4] = {0, 0, 0, 0}, bad = 0;

    make_request(s->a, &a);
    make_request(s->b, &b);
    for (int round = 0; round < s->rounds; round++) {
        int k = run_round(s, &a, &b, bad < 3);
        if (k < 0)
            bad++;
        else
            seen[k]++;
    }
    CHECK_INT_EQ(bad, 0);
    printf("  %s: %d rounds, outcomes seen %d/%d/%d/%d\n", s->name, s->rounds, seen[0], seen[1],
           seen[2], seen[3]);
    table_update_clear(&a);
    table_update_clear(&b);
}

/* Each outcome listed is what a serial order gives (run one after the other). */
static void test_each_allowed_outcome_is_a_serial_order(void)
{
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        const struct scenario *s = &scenarios[i];
        for (int order = 0; order < 2; order++) {
            struct table_update u[2];
            struct racer r[2];
            char answer[2][512], state[512];
            struct db *db = new_db(s->delay, s->billing, s->rows);
            bool listed = false;
            make_request(order ? s->b : s->a, &u[0]);
            make_request(order ? s->a : s->b, &u[1]);
            for (int j = 0; j < 2; j++) {
                struct table_desc desc;
                memset(&desc, 0, sizeof desc);
                memset(&r[j], 0, sizeof r[j]);
                r[j].rc = db_update_table(db, &scope, &u[j], &desc, &r[j].err);
                table_desc_clear(&desc);
                answer_of(&r[j], answer[order ? 1 - j : j], sizeof answer[0]);
                ddb_error_clear(&r[j].err);
                table_update_clear(&u[j]);
            }
            describe_state(db, state, sizeof state);
            for (int k = 0; k < 4 && s->allowed[k].a; k++) {
                const struct outcome *o = &s->allowed[k];
                listed = listed || (!strcmp(answer[0], o->a) && !strcmp(answer[1], o->b) &&
                                    !strcmp(state, o->state));
            }
            if (!listed)
                fprintf(stderr, "%s, %s first: not listed\n  A: %s\n  B: %s\n  table: %s\n",
                        s->name, order ? "B" : "A", answer[0], answer[1], state);
            CHECK(listed);
            db_free(db);
        }
    }
}

static void test_concurrent_updates_end_as_a_serial_order(void)
{
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        run_scenario(&scenarios[i]);
}

int main(void)
{
    RUN(test_each_allowed_outcome_is_a_serial_order);
    RUN(test_concurrent_updates_end_as_a_serial_order);
    return check_report();
}
