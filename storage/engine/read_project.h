/*
 * read_project.h - the shapes a Query or Scan page gives its items (read.c's
 * finish_page): a GSI's view of an item (the attributes the index projects),
 * and the names of a projection that is made from the stored encoding
 * (item_project) rather than from the decoded tree.
 */
#ifndef DDB_READ_PROJECT_H
#define DDB_READ_PROJECT_H

#include "storage/expr/expr.h"
#include "storage/model/value.h"
#include "storage/table/index.h"

#include <stdbool.h>

/* The attributes of attrs (an item's tree) that the index holds, into *out
 * (a new VALUE_M the caller owns). */
void read_index_view(const struct table_index *index, const struct value *attrs, struct value *out);

/* The names a page keeps from each item's encoding. */
struct page_names {
    struct expr_top_names top; /* borrowed from the projection, or own (below) */
    const char **own_names;    /* NULL unless filtered by an index; owned */
    size_t *own_lens;
};

/* Whether projection names only top-level attributes
 * (expr_projection_top_names), so the page makes its items with item_project;
 * then *out holds the names. With view_of (the answer is that GSI's view of
 * the item) only the names the index projects are kept: the view holds an
 * item's attributes the index projects, so that is the same answer.
 * page_names_clear frees what it holds either way. */
bool page_names_init(struct page_names *out, const struct expr *projection,
                     const struct table_index *view_of);
void page_names_clear(struct page_names *names);

#endif
