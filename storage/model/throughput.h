/*
 * throughput.h - the rules of a table's or GSI's throughput settings.
 *
 * ProvisionedThroughput, OnDemandThroughput and WarmThroughput each have a
 * rule or two that CreateTable (checked in api/) and UpdateTable (checked in
 * storage, against the table, under the lock) share; they are written here
 * once, on typed values, with AWS's texts. Also here: the WarmThroughput
 * DescribeTable reports, which UpdateTable's "only grows" rule compares with.
 *
 * The structs themselves (struct throughput, on_demand_throughput,
 * warm_throughput) are in schema.h. Nothing here allocates.
 */
#ifndef DDB_THROUGHPUT_H
#define DDB_THROUGHPUT_H

#include "storage/base/error.h"
#include "storage/model/schema.h"

#include <stdbool.h>
#include <stdint.h>

/* The largest ProvisionedThroughput value AWS accepts before "out of bounds"
 * (dynalite's test/createTable.js and updateTable.js, recorded). */
#define DDB_MAX_CAPACITY_UNITS 1000000000000LL

/* The warm throughput DynamoDB reports for an on-demand table or GSI that never
 * configured one (ack-api-quirks DDB-TABLE-134, ScyllaDB issue #21853). */
#define DDB_WARM_DEFAULT_READ_UNITS  12000
#define DDB_WARM_DEFAULT_WRITE_UNITS 4000

/* Which members a request's OnDemandThroughput or WarmThroughput object had:
 * any: it had members at all (an empty one counts as absent, ack-api-quirks
 * DDB-TABLE-456); read: MaxReadRequestUnits / ReadUnitsPerSecond; write:
 * MaxWriteRequestUnits / WriteUnitsPerSecond (JSON null counts as absent). */
struct units_sent {
    bool any;
    bool read;
    bool write;
};

/* The WarmThroughput DescribeTable reports for a table or GSI of a table in
 * billing mode billing: never below the on-demand defaults or the provisioned
 * units; warm is what it was asked to be ready for (zeros: nothing). */
struct warm_throughput throughput_warm_described(enum billing_mode billing,
                                                 const struct throughput *units,
                                                 const struct warm_throughput *warm);

/* ValidationException "Given value N for ReadCapacityUnits is out of bounds
 * [for index I]" when a ProvisionedThroughput value passes
 * DDB_MAX_CAPACITY_UNITS (index NULL: the table's). */
int throughput_check_bounds(const struct throughput *pt, const char *index, struct ddb_error *err);

/* The OnDemandThroughput of a table (index NULL) or of its GSI named index,
 * whose billing mode is (or becomes) on demand when on_demand: its members
 * are refused on a provisioned table, and must be positive (updating: or -1,
 * which clears a maximum). sent says which members the request had. */
int throughput_check_on_demand(const struct on_demand_throughput *spec,
                               const struct units_sent *sent, bool on_demand, bool updating,
                               const char *index, struct ddb_error *err);

/* UpdateTable's WarmThroughput only grows (ack-api-quirks DDB-TABLE-442): each
 * member sent must be at least what now (as described) has. index NULL: the
 * table's ("for table"), else "for index I". */
int throughput_check_warm_growth(const struct warm_throughput *want, const struct units_sent *sent,
                                 const struct warm_throughput *now, const char *index,
                                 struct ddb_error *err);

#endif
