/*
 * export_filter.h - filtered exports: ExportTableToPointInTime's
 * FilterSpecification checked against the table and applied to what an
 * export writes (export_filter.c).
 *
 * The Developer Guide ("Filtering a table export"): a key condition selects
 * items by their primary key with Query's syntax and rules; a filter
 * expression applies Scan's filter rules to key and non-key attributes, but
 * may not name a key attribute when a key condition is given; a projection
 * names the attributes written. Full and incremental exports both take a
 * filter; an incremental export evaluates it against each changed item's
 * latest image, a deleted item's against its old image.
 */
#ifndef DDB_CONTROL_EXPORT_FILTER_H
#define DDB_CONTROL_EXPORT_FILTER_H

#include "storage/base/error.h"
#include "storage/control/jobs.h"
#include "storage/expr/expr.h"
#include "storage/table/table.h"

/* Checks r's key condition and filter against t's key schema and resolves the
 * key condition into *kc (cleared when there is none; key_condition_clear).
 * Query's errors and texts. The caller holds the engine lock. */
int export_filter_check(const struct table *t, const struct export_request *r,
                        struct key_condition *kc, struct ddb_error *err);

/* Keeps the items (or changes) of data that r's filter selects, projected by
 * r's projection; kc as export_filter_check resolved it. Needs no lock: the
 * items are immutable. */
void export_filter_apply(const struct export_request *r, const struct key_condition *kc,
                         struct export_data *data);

#endif
