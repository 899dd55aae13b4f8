/*
 * read_stale.h - a Query or Scan page answered as of a moment ago
 * (--consistency aws, consistency.c): read.c walks the current rows, then
 * read_stale_page puts each row changed since the moment back as it was then.
 */
#ifndef DDB_READ_STALE_H
#define DDB_READ_STALE_H

#include "storage/expr/expr.h"
#include "storage/model/item.h"
#include "storage/table/table.h"

#include <stdbool.h>
#include <stdint.h>

/* Which rows the page covers, in which order. */
struct stale_bounds {
    const struct table *t;
    const struct table_index *index;         /* NULL: the table's rows */
    const struct key_condition *kc;          /* Query; NULL for a Scan */
    bool segmented;                          /* a parallel-scan segment: */
    uint64_t seg_start, seg_end;             /*   hashes [seg_start, seg_end) */
    bool last_segment;                       /*   ... or [seg_start, end) */
    const struct value *exclusive_start_key; /* NULL when none */
    const struct item *last;                 /* the walk's last row when it stopped early */
    bool forward;
    int64_t limit; /* 0: none */
};

/*
 * Replaces in the walk's rows (*rows[0..*count), owned references in page
 * order; *cap their room) every row changed after as_of_ms by its state then
 * (dropping rows that did not exist then, adding rows deleted since that fall
 * in the page), keeping at most b->limit rows. Returns the number of rows the
 * answer differs by (0: the page was current); *truncated when rows were cut
 * at the limit. Caller holds the lock.
 */
size_t read_stale_page(const struct stale_bounds *b, int64_t as_of_ms, struct item ***rows,
                       size_t *count, size_t *cap, bool *truncated);

#endif
