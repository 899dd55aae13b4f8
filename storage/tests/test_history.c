/*
 * test_history.c - the point-in-time history (table/history.c): entries in
 * commit order with their references, trims from the front by time, and a
 * clear that keeps the sequence numbers going. Restores that read the
 * history are tested in test_persist.c and conformance/test_emulator_pitr.py.
 */
#include "storage/base/lock_check.h"
#include "storage/engine/db.h"
#include "storage/table/history.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static struct item *new_item(const char *pk)
{
    struct value m, v;

    value_init_map(&m);
    value_init_string(&v, pk, strlen(pk));
    value_map_set(&m, "pk", 2, &v);
    return item_new(&m);
}

static void test_entries_trims_and_clear(void)
{
    struct history h;
    struct item *a = new_item("a"), *b = new_item("b");
    item_scratch_reset(); /* the thread's memo holds references too (item.c) */
    uint64_t upto = 0;

    lock_check_acquired(LOCK_HOLD_EXCLUSIVE);
    history_init(&h);
    CHECK_INT_EQ(history_append(&h, 100, NULL, a)->seq, 1);
    CHECK_INT_EQ(history_append(&h, 200, a, b)->seq, 2);
    CHECK_INT_EQ(history_append(&h, 300, b, NULL)->seq, 3);
    CHECK_INT_EQ(history_count(&h), 3);
    /* The entries hold their own references. */
    CHECK_INT_EQ(a->refcount, 3);
    CHECK(!history_trim(&h, 100, &upto));
    CHECK(history_trim(&h, 250, &upto));
    CHECK_INT_EQ(upto, 2);
    CHECK_INT_EQ(history_count(&h), 1);
    CHECK_INT_EQ(h.entries[h.start].ms, 300);
    CHECK_INT_EQ(a->refcount, 1);
    /* Many appends and trims: the queue stays compact and in order. */
    for (int i = 0; i < 1000; i++) {
        history_append(&h, 400 + i, b, b);
        if (i % 10 == 9) history_trim(&h, 400 + i - 5, &upto);
    }
    CHECK(history_count(&h) <= 16);
    CHECK_INT_EQ(h.entries[h.end - 1].ms, 1399);
    history_clear(&h);
    CHECK_INT_EQ(history_count(&h), 0);
    CHECK_INT_EQ(b->refcount, 1);
    CHECK_INT_EQ(history_append(&h, 2000, NULL, a)->seq, 1004);
    history_clear(&h);
    lock_check_released();
    item_unref(a);
    item_unref(b);
}

int main(void)
{
    RUN(test_entries_trims_and_clear);
    return check_report();
}
