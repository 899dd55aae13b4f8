/*
 * capacity.c - capacity-unit arithmetic; see capacity.h.
 */
#include "storage/engine/capacity.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/db.h"

#include <string.h>

static size_t units_of(size_t size_bytes, size_t unit_bytes)
{
    size_t units = (size_bytes + unit_bytes - 1) / unit_bytes;
    return units ? units : 1;
}

double capacity_read_units(size_t size_bytes, bool consistent)
{
    double units = (double) units_of(size_bytes, DDB_READ_UNIT_BYTES);
    return consistent ? units : units / 2;
}

double capacity_write_units(size_t size_bytes)
{
    return (double) units_of(size_bytes, DDB_WRITE_UNIT_BYTES);
}

void capacity_begin(struct consumed_capacity *c, enum return_capacity mode, const char *table_name)
{
    memset(c, 0, sizeof *c);
    if (mode == RETURN_CAPACITY_NONE) return;
    c->table_name = xstrdup(table_name);
}

void capacity_add_table(struct consumed_capacity *c, double read_units, double write_units)
{
    if (!c->table_name) return;
    c->read_units += read_units;
    c->write_units += write_units;
    c->table_read_units += read_units;
    c->table_write_units += write_units;
}

void capacity_add_index(struct consumed_capacity *c, enum return_capacity mode, const char *name,
                        bool is_global, double read_units, double write_units)
{
    struct index_capacity *ic = NULL;
    if (!c->table_name) return;
    c->read_units += read_units;
    c->write_units += write_units;
    if (mode != RETURN_CAPACITY_INDEXES) return;
    for (size_t i = 0; i < c->index_count; i++) {
        if (strcmp(c->indexes[i].index_name, name) == 0) ic = &c->indexes[i];
    }
    if (!ic) {
        c->indexes = xrealloc(c->indexes, sizeof *c->indexes * (c->index_count + 1));
        ic = &c->indexes[c->index_count++];
        memset(ic, 0, sizeof *ic);
        ic->index_name = xstrdup(name);
        ic->is_global = is_global;
    }
    ic->read_units += read_units;
    ic->write_units += write_units;
}

void capacity_add_vector_write(struct consumed_capacity *c, enum return_capacity mode,
                               const char *name, double bytes)
{
    struct vector_capacity *vc = NULL;
    if (!c->table_name || mode != RETURN_CAPACITY_INDEXES || bytes <= 0) return;
    for (size_t i = 0; i < c->vector_count; i++) {
        if (strcmp(c->vectors[i].index_name, name) == 0) vc = &c->vectors[i];
    }
    if (!vc) {
        c->vectors = xrealloc(c->vectors, sizeof *c->vectors * (c->vector_count + 1));
        vc = &c->vectors[c->vector_count++];
        vc->index_name = xstrdup(name);
        vc->write_bytes = 0;
    }
    vc->write_bytes += bytes;
}
