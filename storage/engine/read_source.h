/*
 * read_source.h - what a Query or Scan page reads (the table or one of its
 * indexes) and the request's checks against it, in the order AWS reports
 * them (read.c walks the page; GetItem is read_item.c).
 */
#ifndef DDB_READ_SOURCE_H
#define DDB_READ_SOURCE_H

#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/expr/expr.h"
#include "storage/model/key.h"
#include "storage/table/table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INVALID_START_KEY "The provided starting key is invalid"
#define KEY_MISMATCH      "The provided key element does not match the schema"

/* What the walk needs to know about its source, copied so it outlives the lock. */
struct source {
    const struct skiplist *rows;
    const struct table_index *index; /* NULL for the table; valid under the lock only */
    struct index_def index_def;      /* copy, for projection after the lock */
    struct key_schema table_key;     /* copy */
    bool is_index;
    bool is_global;
    bool fetch; /* LSI read that needs the rest of the item (table reads) */
};

/* The source op names (the table, or op->index_name's index) into *s, or an
 * error AWS gives for that index (absent, a vector index, a GSI read
 * consistently or still backfilling). Caller holds the lock; the copies in
 * *s outlive it, s->index does not. */
int read_source_open(const struct table *t, const struct read_page_op *op, int64_t now_ms,
                     struct source *s, struct ddb_error *err);
/* Frees the copies *s holds. */
void read_source_clear(struct source *s);
/* The key schema the request reads by: the index's, or the table's. */
const struct key_schema *read_source_schema(const struct source *s);
/* The key attribute names a row of the source is identified by (index keys,
 * then table keys), into names (ROW_KEY_MAX_PARTS); how many. */
size_t read_source_key_names(const struct source *s, const char **names);
/* The row key of a source row for the item or key map attrs (index or table
 * layout); false when attrs lacks an index key attribute. */
bool read_source_row_key(const struct table *t, const struct source *s, const struct value *attrs,
                         struct key_numbers *nums, struct row_key *out);
/* Whether an LSI read must fetch the rest of each item from the table (s->fetch). */
void read_source_decide_fetch(struct source *s, const struct read_page_op *op);

/* Query's checks against the schema, in the order AWS reports them; *kc, the
 * resolved key condition, is the caller's to clear. Caller holds the lock. */
int read_check_query(const struct table *t, const struct source *s, const struct read_page_op *op,
                     struct key_condition *kc, struct ddb_error *err);
/* Scan's checks against the schema, in the order AWS reports them (dynalite
 * actions/scan.js). Caller holds the lock. */
int read_check_scan(const struct table *t, const struct source *s, const struct read_page_op *op,
                    struct ddb_error *err);

#endif
