/*
 * throughput.c - the rules of throughput settings, written once; see throughput.h.
 *
 * Texts as recorded from AWS: the bounds [d: dynalite test/createTable.js,
 * test/updateTable.js], OnDemandThroughput and WarmThroughput [q:
 * ack-api-quirks DDB-TABLE-442/456, live service].
 */
#include "storage/model/throughput.h"

#include <stdio.h>

#define INVALID "One or more parameter values were invalid: "

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

struct warm_throughput throughput_warm_described(enum billing_mode billing,
                                                 const struct throughput *units,
                                                 const struct warm_throughput *warm)
{
    bool on_demand = billing == BILLING_PAY_PER_REQUEST;
    struct warm_throughput out = {
        .read_per_s = on_demand ? DDB_WARM_DEFAULT_READ_UNITS : units->read_units,
        .write_per_s = on_demand ? DDB_WARM_DEFAULT_WRITE_UNITS : units->write_units,
    };

    if (warm) {
        out.read_per_s = max64(out.read_per_s, warm->read_per_s);
        out.write_per_s = max64(out.write_per_s, warm->write_per_s);
    }
    return out;
}

int throughput_check_bounds(const struct throughput *pt, const char *index, struct ddb_error *err)
{
    static const char *const units[] = {"ReadCapacityUnits", "WriteCapacityUnits"};
    const int64_t values[] = {pt->read_units, pt->write_units};

    for (size_t i = 0; i < 2; i++) {
        if (values[i] <= DDB_MAX_CAPACITY_UNITS) continue;
        if (index)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Given value %lld for %s is out of bounds for index %s",
                                 (long long) values[i], units[i], index);
        return ddb_error_set(err, DDB_VALIDATION, "Given value %lld for %s is out of bounds",
                             (long long) values[i], units[i]);
    }
    return 0;
}

int throughput_check_on_demand(const struct on_demand_throughput *spec,
                               const struct units_sent *sent, bool on_demand, bool updating,
                               const char *index, struct ddb_error *err)
{
    static const char *const members[] = {"MaxReadRequestUnits", "MaxWriteRequestUnits"};
    const bool given[] = {sent->read, sent->write};
    const int64_t values[] = {spec->max_read, spec->max_write};
    char whose[300];

    if (index)
        snprintf(whose, sizeof whose, "index : %s", index);
    else
        snprintf(whose, sizeof whose, "table");
    for (size_t i = 0; i < 2; i++) {
        int64_t n = values[i];
        if (!given[i]) continue;
        if (!on_demand)
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "%s for OnDemandThroughput%s%s cannot be specified when "
                                         "the table BillingMode is PROVISIONED",
                                 members[i], index ? " for " : "", index ? whose : "");
        if (n == 0 || n < -1 || (n == -1 && !updating))
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "Requested %s for OnDemandThroughput for %s is outside of "
                                         "valid range",
                                 members[i], whose);
    }
    return 0;
}

int throughput_check_warm_growth(const struct warm_throughput *want, const struct units_sent *sent,
                                 const struct warm_throughput *now, const char *index,
                                 struct ddb_error *err)
{
    static const char *const members[] = {"ReadUnitsPerSecond", "WriteUnitsPerSecond"};
    const bool given[] = {sent->read, sent->write};
    const int64_t wanted[] = {want->read_per_s, want->write_per_s};
    const int64_t current[] = {now->read_per_s, now->write_per_s};

    if (!sent->any) return 0;
    for (size_t i = 0; i < 2; i++) {
        if (given[i] && wanted[i] < current[i])
            return ddb_error_set(err, DDB_VALIDATION,
                                 INVALID "Requested %s for WarmThroughput for %s%s is lower than "
                                         "current WarmThroughput, decreasing WarmThroughput is not "
                                         "supported",
                                 members[i], index ? "index " : "table", index ? index : "");
    }
    return 0;
}
