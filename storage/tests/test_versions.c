/*
 * test_versions.c - a table's recent versions (table/versions.c), for
 * --consistency aws: the state of a key as of a moment is the old item of its
 * first change after it (or the current item), the keys changed since a
 * moment come once each, and the window and its bucket counts follow the
 * trims. The reads built on it are tested end to end in
 * conformance/test_emulator_consistency.py.
 */
#include "storage/base/lock_check.h"
#include "storage/model/schema.h"
#include "storage/table/versions.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static struct item *new_item(const char *pk, const char *v)
{
    struct value m, s;

    value_init_map(&m);
    value_init_string(&s, pk, strlen(pk));
    value_map_set(&m, "pk", 2, &s);
    value_init_string(&s, v, strlen(v));
    value_map_set(&m, "v", 1, &s);
    return item_new(&m);
}

static void key_of(const char *pk, struct value *holder, struct row_key *rk)
{
    value_init_string(holder, pk, strlen(pk));
    memset(rk, 0, sizeof *rk);
    key_part_of(holder, NULL, &rk->parts[0]); /* an S part: no number room needed */
    rk->part_count = 1;
    rk->hash = key_hash(rk->parts, 1);
}

static void test_state_as_of_a_moment_and_changes_since(void)
{
    char pk_name[] = "pk";
    struct key_schema k = {.hash_count = 1, .hash_names = {pk_name}};
    struct item *a1 = new_item("a", "1"), *a2 = new_item("a", "2"), *b1 = new_item("b", "1");
    item_scratch_reset(); /* the thread's memo holds references too (item.c) */
    struct value ha, hb, hc;
    struct row_key ka, kb, kc;
    struct version_change *changes;
    struct versions *v;

    lock_check_acquired(LOCK_HOLD_EXCLUSIVE);
    key_of("a", &ha, &ka);
    key_of("b", &hb, &kb);
    key_of("c", &hc, &kc);
    v = versions_new(1000);
    versions_record(v, &k, NULL, a1, 100); /* a created */
    versions_record(v, &k, a1, a2, 200);   /* a changed */
    versions_record(v, &k, NULL, b1, 300); /* b created */
    versions_record(v, &k, b1, NULL, 400); /* b deleted */
    /* As of 50 neither existed; as of 150 a was a1; as of 350 b was b1. */
    CHECK(versions_state_at(v, &k, &ka, a2, 50) == NULL);
    CHECK(versions_state_at(v, &k, &ka, a2, 150) == a1);
    CHECK(versions_state_at(v, &k, &ka, a2, 200) == a2);
    CHECK(versions_state_at(v, &k, &kb, NULL, 350) == b1);
    CHECK(versions_state_at(v, &k, &kb, NULL, 400) == NULL);
    /* A key nobody changed is current, whatever the moment. */
    CHECK(versions_state_at(v, &k, &kc, NULL, 0) == NULL);
    /* Changed since 150: a (then a1, now a2) and b (then absent, now absent). */
    CHECK_INT_EQ(versions_changed_since(v, &k, 150, &changes), 2);
    CHECK(changes[0].then == a1 && changes[0].now == a2);
    CHECK(changes[1].then == NULL && changes[1].now == NULL);
    free(changes);
    /* A change past the window drops what is older than it, and its counts. */
    versions_record(v, &k, a2, a1, 1250);
    CHECK_INT_EQ(v->changes.end - v->changes.start, 3);
    CHECK_INT_EQ(v->pending[ka.hash % VERSIONS_BUCKETS], 1);
    CHECK_INT_EQ(v->pending[kb.hash % VERSIONS_BUCKETS], 2);
    versions_record(v, &k, a1, a2, 5000);
    CHECK_INT_EQ(v->changes.end - v->changes.start, 1);
    CHECK_INT_EQ(v->pending[kb.hash % VERSIONS_BUCKETS], 0);
    CHECK(versions_state_at(v, &k, &kb, NULL, 0) == NULL);
    versions_free(v);
    lock_check_released();
    CHECK_INT_EQ(a1->refcount, 1);
    value_clear(&ha);
    value_clear(&hb);
    value_clear(&hc);
    item_unref(a1);
    item_unref(a2);
    item_unref(b1);
}

int main(void)
{
    RUN(test_state_as_of_a_moment_and_changes_since);
    return check_report();
}
