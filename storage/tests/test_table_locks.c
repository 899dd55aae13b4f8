/*
 * test_table_locks.c - item operations on different tables run at once
 * (docs/architecture.md, "Locking"): writers of two tables, in two
 * namespaces, race cross-table transactions, TransactGetItems readers and a
 * DeleteTable, and every outcome must be one a serial order could give:
 *  - no lost update: each writer's counter ends at exactly its count;
 *  - a transaction over two tables is all or nothing and isolated: a
 *    TransactGetItems never sees its two items apart, and they end equal to
 *    the number of transactions that succeeded;
 *  - DeleteTable is a point in time: a writer's puts on the deleted table
 *    succeed up to some moment and fail with ResourceNotFoundException from
 *    then on, and a transaction over it and a live table commits both halves
 *    or neither.
 * With --db-path, the same writers' changes all survive a restart.
 * Threads count what they saw in atomics; the checks run on the main thread
 * (check.h is not thread-safe). Run under ThreadSanitizer by scripts/test.
 */
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/expr/expr.h"
#include "storage/tests/check.h"
#include "storage/tests/db_fixtures.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WRITES       400
#define TRANSACTIONS 150

static const struct db_scope ns1 = {"ns-one", "us-east-1"};
static const struct db_scope ns2 = {"ns-two", "us-east-1"};

static void create(struct db *db, const struct db_scope *scope, const char *name)
{
    struct table_def def;

    def_init(&def, name);
    def_add_key(&def, "k", VALUE_S, true);
    def.stream.enabled = true;
    def.stream.view = STREAM_NEW_AND_OLD_IMAGES;
    create_table_ok(db, scope, &def);
}

/* The number attribute name of item, 0 when it has none. */
static long number_of(const struct item *item, const char *name)
{
    const struct value *v = item ? value_map_get(item_attrs(item), name, strlen(name)) : NULL;
    return v && v->type == VALUE_N ? strtol(v->u.str.data, NULL, 10) : 0;
}

/* An UpdateItem "ADD n :one" of item key in table: its parsed expression and
 * the values it refers to, owned by the caller's struct. */
struct add_one {
    struct value values;
    struct expr_ctx ctx;
    struct expr *update;
};

static void add_one_init(struct add_one *a)
{
    struct ddb_error err = {0};

    value_init_map(&a->values);
    set_n(&a->values, ":one", 1);
    expr_ctx_init(&a->ctx, NULL, &a->values);
    if (expr_parse(EXPR_UPDATE, "UpdateExpression", "ADD n :one", 10, &a->ctx, &a->update, &err))
        abort();
}

static void add_one_clear(struct add_one *a)
{
    expr_free(a->update);
    expr_ctx_clear(&a->ctx);
    value_clear(&a->values);
}

static struct write_op add_op(const struct add_one *a, const char *table, const char *key)
{
    struct write_op op = {.kind = WRITE_UPDATE, .table_name = table, .update = a->update};

    value_init_map(&op.key);
    set_s(&op.key, "k", key);
    return op;
}

/* ---- the threads ---- */

struct run {
    struct db *db;
    atomic_int failures;        /* unexpected errors */
    atomic_int tx_committed;    /* A+B transactions that succeeded */
    atomic_int torn_reads;      /* TransactGetItems that saw A and B apart */
    atomic_int c_put_ok;        /* puts on C that succeeded */
    atomic_int c_put_after_rnf; /* puts on C that succeeded after one failed */
    atomic_int ac_committed;    /* A+C transactions that succeeded */
    atomic_bool c_deleted;      /* DeleteTable C has returned */
    atomic_bool stop;
};

struct writer {
    struct run *run;
    const struct db_scope *scope;
    const char *table;
};

/* WRITES times: one new item, and ADD 1 to the table's counter item. */
static void *writer_main(void *arg)
{
    struct writer *w = arg;
    struct add_one a;

    add_one_init(&a);
    for (int i = 0; i < WRITES; i++) {
        struct write_op op = add_op(&a, w->table, "counter");
        struct write_result res;
        struct ddb_error err = {0};
        struct value m;
        char key[32];
        int rc = db_write_item(w->run->db, w->scope, &op, RETURN_CAPACITY_NONE, &res, &err);

        if (rc == 0) write_result_clear(&res);
        if (rc != 0) atomic_fetch_add(&w->run->failures, 1);
        ddb_error_clear(&err);
        value_clear(&op.key);

        value_init_map(&m);
        snprintf(key, sizeof key, "item-%d", i);
        set_s(&m, "k", key);
        set_n(&m, "i", i);
        op = (struct write_op){.kind = WRITE_PUT, .table_name = w->table, .put_item = item_new(&m)};
        rc = db_write_item(w->run->db, w->scope, &op, RETURN_CAPACITY_NONE, &res, &err);
        if (rc == 0) write_result_clear(&res);
        if (rc != 0) atomic_fetch_add(&w->run->failures, 1);
        ddb_error_clear(&err);
        item_unref(op.put_item);
    }
    add_one_clear(&a);
    return NULL;
}

/* TRANSACTIONS times: ADD 1 to "pair" in A and in B, in one transaction;
 * every fifth with a ClientRequestToken (the catalog-wide path). */
static void *transactor_main(void *arg)
{
    struct run *run = arg;
    struct add_one a;

    add_one_init(&a);
    for (int i = 0; i < TRANSACTIONS; i++) {
        struct write_op ops[2] = {add_op(&a, "A", "pair"), add_op(&a, "B", "pair")};
        struct consumed_capacity *caps = NULL;
        struct failure_details failure = {0};
        struct ddb_error err = {0};
        size_t cap_count = 0;
        char token[32];
        int rc;

        snprintf(token, sizeof token, "token-%d", i);
        rc = db_transact_write(run->db, &ns1, ops, 2, i % 5 ? NULL : token, i % 5 ? NULL : "d",
                               RETURN_CAPACITY_NONE, &caps, &cap_count, &failure, &err);
        if (rc == 0)
            atomic_fetch_add(&run->tx_committed, 1);
        else
            atomic_fetch_add(&run->failures, 1);
        for (size_t c = 0; c < cap_count; c++)
            consumed_capacity_clear(&caps[c]);
        free(caps);
        failure_details_clear(&failure);
        ddb_error_clear(&err);
        value_clear(&ops[0].key);
        value_clear(&ops[1].key);
    }
    add_one_clear(&a);
    return NULL;
}

/* Until told to stop: TransactGetItems of A's and B's "pair", which must agree. */
static void *reader_main(void *arg)
{
    struct run *run = arg;

    while (!atomic_load(&run->stop)) {
        struct get_op gets[2] = {{.table_name = "A", .consistent_read = true},
                                 {.table_name = "B", .consistent_read = true}};
        struct item *items[2] = {NULL, NULL};
        struct consumed_capacity *caps = NULL;
        struct failure_details failure = {0};
        struct ddb_error err = {0};
        size_t cap_count = 0;

        for (int g = 0; g < 2; g++) {
            value_init_map(&gets[g].key);
            set_s(&gets[g].key, "k", "pair");
        }
        if (db_transact_get(run->db, &ns1, gets, 2, RETURN_CAPACITY_NONE, items, &caps, &cap_count,
                            &failure, &err) != 0)
            atomic_fetch_add(&run->failures, 1);
        else if (number_of(items[0], "n") != number_of(items[1], "n"))
            atomic_fetch_add(&run->torn_reads, 1);
        for (int g = 0; g < 2; g++) {
            item_unref(items[g]);
            value_clear(&gets[g].key);
        }
        for (size_t c = 0; c < cap_count; c++)
            consumed_capacity_clear(&caps[c]);
        free(caps);
        failure_details_clear(&failure);
        ddb_error_clear(&err);
    }
    return NULL;
}

/* Puts on C, and transactions over A and C, until C is gone and told to stop. */
static void *doomed_main(void *arg)
{
    struct run *run = arg;
    struct add_one a;
    bool failed_once = false;

    add_one_init(&a);
    for (int i = 0; !atomic_load(&run->stop); i++) {
        struct write_op ops[2] = {add_op(&a, "A", "ac"), add_op(&a, "C", "ac")};
        struct consumed_capacity *caps = NULL;
        struct failure_details failure = {0};
        struct write_result res;
        struct ddb_error err = {0};
        size_t cap_count = 0;
        struct value m;
        struct write_op put;
        char key[32];
        bool deleted_before = atomic_load(&run->c_deleted);
        int rc;

        value_init_map(&m);
        snprintf(key, sizeof key, "c-%d", i);
        set_s(&m, "k", key);
        put = (struct write_op){.kind = WRITE_PUT, .table_name = "C", .put_item = item_new(&m)};
        rc = db_write_item(run->db, &ns1, &put, RETURN_CAPACITY_NONE, &res, &err);
        if (rc == 0) {
            write_result_clear(&res);
            atomic_fetch_add(&run->c_put_ok, 1);
            if (failed_once || deleted_before) atomic_fetch_add(&run->c_put_after_rnf, 1);
        } else if (err.code == DDB_RESOURCE_NOT_FOUND) {
            failed_once = true;
        } else {
            atomic_fetch_add(&run->failures, 1);
        }
        ddb_error_clear(&err);
        item_unref(put.put_item);

        rc = db_transact_write(run->db, &ns1, ops, 2, NULL, NULL, RETURN_CAPACITY_NONE, &caps,
                               &cap_count, &failure, &err);
        if (rc == 0)
            atomic_fetch_add(&run->ac_committed, 1);
        else if (err.code != DDB_RESOURCE_NOT_FOUND)
            atomic_fetch_add(&run->failures, 1);
        for (size_t c = 0; c < cap_count; c++)
            consumed_capacity_clear(&caps[c]);
        free(caps);
        failure_details_clear(&failure);
        ddb_error_clear(&err);
        value_clear(&ops[0].key);
        value_clear(&ops[1].key);
    }
    add_one_clear(&a);
    return NULL;
}

static long read_number(struct db *db, const struct db_scope *scope, const char *table,
                        const char *key, const char *name)
{
    struct value k;
    struct item *item;
    long n;

    value_init_map(&k);
    set_s(&k, "k", key);
    item = get_ok(db, scope, table, &k);
    n = number_of(item, name);
    item_unref(item);
    return n;
}

static long item_count(struct db *db, const struct db_scope *scope, const char *table)
{
    struct table_desc desc;
    struct ddb_error err = {0};
    long n = -1;

    if (db_describe_table(db, scope, table, &desc, &err) == 0) {
        n = (long) desc.item_count;
        table_desc_clear(&desc);
    }
    ddb_error_clear(&err);
    return n;
}

static void test_writers_race_transactions_and_delete_table(void)
{
    struct run run = {.db = db_new()};
    struct writer wa = {&run, &ns1, "A"}, wb = {&run, &ns1, "B"}, wa2 = {&run, &ns2, "A"};
    pthread_t threads[6];
    struct table_desc desc;
    struct ddb_error err = {0};

    create(run.db, &ns1, "A");
    create(run.db, &ns1, "B");
    create(run.db, &ns1, "C");
    create(run.db, &ns2, "A");
    pthread_create(&threads[0], NULL, writer_main, &wa);
    pthread_create(&threads[1], NULL, writer_main, &wb);
    pthread_create(&threads[2], NULL, writer_main, &wa2);
    pthread_create(&threads[3], NULL, transactor_main, &run);
    pthread_create(&threads[4], NULL, reader_main, &run);
    pthread_create(&threads[5], NULL, doomed_main, &run);

    /* DeleteTable C while everything runs, once C has seen some writes. */
    while (atomic_load(&run.c_put_ok) < 20)
        sched_yield();
    CHECK_INT_EQ(db_delete_table(run.db, &ns1, "C", &desc, &err), 0);
    table_desc_clear(&desc);
    atomic_store(&run.c_deleted, true);

    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&run.stop, true);
    pthread_join(threads[4], NULL);
    pthread_join(threads[5], NULL);

    CHECK_INT_EQ(atomic_load(&run.failures), 0);
    CHECK_INT_EQ(atomic_load(&run.torn_reads), 0);
    CHECK_INT_EQ(atomic_load(&run.c_put_after_rnf), 0);
    /* No lost update, per table and per namespace. */
    CHECK_INT_EQ(read_number(run.db, &ns1, "A", "counter", "n"), WRITES);
    CHECK_INT_EQ(read_number(run.db, &ns1, "B", "counter", "n"), WRITES);
    CHECK_INT_EQ(read_number(run.db, &ns2, "A", "counter", "n"), WRITES);
    CHECK_INT_EQ(item_count(run.db, &ns1, "B"), WRITES + 2);
    CHECK_INT_EQ(item_count(run.db, &ns2, "A"), WRITES + 1);
    /* The cross-table transactions: all of them, both halves. */
    CHECK_INT_EQ(atomic_load(&run.tx_committed), TRANSACTIONS);
    CHECK_INT_EQ(read_number(run.db, &ns1, "A", "pair", "n"), TRANSACTIONS);
    CHECK_INT_EQ(read_number(run.db, &ns1, "B", "pair", "n"), TRANSACTIONS);
    /* Those over C: A's half counts exactly the ones that committed. */
    CHECK(atomic_load(&run.ac_committed) > 0);
    CHECK_INT_EQ(read_number(run.db, &ns1, "A", "ac", "n"), atomic_load(&run.ac_committed));
    CHECK_INT_EQ(item_count(run.db, &ns1, "C"), -1);
    ddb_error_clear(&err);
    db_free(run.db);
}

/* With --db-path, writers of two tables record into the one journal at
 * once (a unit per thread, appended under the journal's mutex): after a
 * restart every item and every counter is there. */
static void test_concurrent_writers_survive_a_restart(void)
{
    char templ[] = "/tmp/ddbemu-test-table-locks-XXXXXX";
    char *dir = mkdtemp(templ), *why = NULL, cmd[512];
    struct run run = {0};
    struct writer wa = {&run, &ns1, "A"}, wb = {&run, &ns1, "B"}, wa2 = {&run, &ns2, "A"};
    pthread_t threads[4];

    CHECK(dir != NULL);
    if (!dir) return;
    run.db = db_open_dir(dir, &why);
    CHECK(run.db != NULL);
    if (!run.db) {
        fprintf(stderr, "%s\n", why);
        free(why);
        return;
    }
    create(run.db, &ns1, "A");
    create(run.db, &ns1, "B");
    create(run.db, &ns2, "A");
    pthread_create(&threads[0], NULL, writer_main, &wa);
    pthread_create(&threads[1], NULL, writer_main, &wb);
    pthread_create(&threads[2], NULL, writer_main, &wa2);
    pthread_create(&threads[3], NULL, transactor_main, &run);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    CHECK_INT_EQ(atomic_load(&run.failures), 0);
    db_free(run.db);

    run.db = db_open_dir(dir, &why);
    CHECK(run.db != NULL);
    if (run.db) {
        CHECK_INT_EQ(read_number(run.db, &ns1, "A", "counter", "n"), WRITES);
        CHECK_INT_EQ(read_number(run.db, &ns1, "B", "counter", "n"), WRITES);
        CHECK_INT_EQ(read_number(run.db, &ns2, "A", "counter", "n"), WRITES);
        CHECK_INT_EQ(read_number(run.db, &ns1, "A", "pair", "n"), TRANSACTIONS);
        CHECK_INT_EQ(read_number(run.db, &ns1, "B", "pair", "n"), TRANSACTIONS);
        CHECK_INT_EQ(item_count(run.db, &ns1, "A"), WRITES + 2);
        CHECK_INT_EQ(item_count(run.db, &ns1, "B"), WRITES + 2);
        CHECK_INT_EQ(item_count(run.db, &ns2, "A"), WRITES + 1);
        db_free(run.db);
    } else {
        fprintf(stderr, "%s\n", why);
        free(why);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    RUN(test_writers_race_transactions_and_delete_table);
    RUN(test_concurrent_writers_survive_a_restart);
    return check_report();
}
