/*
 * read_project.c - a page's GSI views and encoded projections; see
 * read_project.h. Pure functions over the page's items, run after the
 * table's lock is released.
 */
#include "storage/engine/read_project.h"

#include "storage/base/alloc.h"

#include <stdlib.h>
#include <string.h>

void read_index_view(const struct table_index *index, const struct value *attrs, struct value *out)
{
    value_init_map(out);
    for (size_t a = 0; a < attrs->u.map.count; a++) {
        const struct attr *at = &attrs->u.map.attrs[a];
        struct value copy;
        if (!index_projects(index, at->name, at->name_len)) continue;
        value_copy(&copy, &at->value);
        value_map_set(out, at->name, at->name_len, &copy);
    }
}

bool page_names_init(struct page_names *out, const struct expr *projection,
                     const struct table_index *view_of)
{
    struct expr_top_names all;
    size_t n = 0;

    memset(out, 0, sizeof *out);
    if (!projection || !expr_projection_top_names(projection, &all)) return false;
    if (!view_of) {
        out->top = all;
        return true;
    }
    out->own_names = xmalloc((all.count + 1) * sizeof *out->own_names);
    out->own_lens = xmalloc((all.count + 1) * sizeof *out->own_lens);
    for (size_t i = 0; i < all.count; i++) {
        if (!index_projects(view_of, all.names[i], all.lens[i])) continue;
        out->own_names[n] = all.names[i];
        out->own_lens[n++] = all.lens[i];
    }
    out->top = (struct expr_top_names){out->own_names, out->own_lens, n};
    return true;
}

void page_names_clear(struct page_names *names)
{
    free(names->own_names);
    free(names->own_lens);
    memset(names, 0, sizeof *names);
}
