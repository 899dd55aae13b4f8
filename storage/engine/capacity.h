/*
 * capacity.h - capacity units by DynamoDB's rules.
 *
 * Source: developerguide/read-write-operations.html ("Capacity unit
 * consumption"): a read unit covers 4 KB of item size (half a unit for an
 * eventually consistent read, double for a transactional one), a write unit
 * 1 KB; sizes round up, and every read or write consumes at least one unit of
 * its kind. A write is charged for the larger of the item before and after it.
 */
#ifndef DDB_CAPACITY_H
#define DDB_CAPACITY_H

#include "storage/engine/db.h"

#include <stdbool.h>
#include <stddef.h>

double capacity_read_units(size_t size_bytes, bool consistent);
double capacity_write_units(size_t size_bytes);
/* Starts recording a request's consumption for a table (no-op for NONE). */
void capacity_begin(struct consumed_capacity *c, enum return_capacity mode, const char *table_name);
void capacity_add_table(struct consumed_capacity *c, double read_units, double write_units);

/* Records units consumed by an index (and, for RETURN_CAPACITY_INDEXES, itemizes them). */
void capacity_add_index(struct consumed_capacity *c, enum return_capacity mode, const char *name,
                        bool is_global, double read_units, double write_units);

/* Records the VectorWriteRequestBytes a write cost a vector index; only under
 * RETURN_CAPACITY_INDEXES, the one mode AWS reports them in (they never join
 * the capacity units). */
void capacity_add_vector_write(struct consumed_capacity *c, enum return_capacity mode,
                               const char *name, double bytes);

#endif
