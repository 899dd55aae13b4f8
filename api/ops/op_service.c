/*
 * op_service.c - DescribeLimits and DescribeEndpoints: questions about the
 * service, not about a table.
 *
 * DescribeLimits reports the default provisioned-capacity quotas of an
 * account (ServiceQuotas.html; the emulator never throttles, so these are
 * what AWS would answer a new account). DescribeEndpoints answers the
 * endpoint the client used - the Host it sent - so that SDKs with endpoint
 * discovery keep talking to the emulator; AWS answers
 * dynamodb.<region>.amazonaws.com with a cache period of 1440 minutes
 * (API_DescribeEndpoints.html, API_Endpoint.html).
 */
#include "api/ops/ops.h"
#include "storage/base/limits.h"

#include <stdio.h>

#define ENDPOINT_CACHE_MINUTES 1440

const struct field describe_limits_fields[] = {{0}};
const struct field describe_endpoints_fields[] = {{0}};

int op_describe_limits(struct api_request *rq)
{
    rq->reply = json_object();
    json_object_set_new(rq->reply, "AccountMaxReadCapacityUnits",
                        json_integer(DDB_ACCOUNT_MAX_CAPACITY_UNITS));
    json_object_set_new(rq->reply, "AccountMaxWriteCapacityUnits",
                        json_integer(DDB_ACCOUNT_MAX_CAPACITY_UNITS));
    json_object_set_new(rq->reply, "TableMaxReadCapacityUnits",
                        json_integer(DDB_TABLE_MAX_CAPACITY_UNITS));
    json_object_set_new(rq->reply, "TableMaxWriteCapacityUnits",
                        json_integer(DDB_TABLE_MAX_CAPACITY_UNITS));
    return 0;
}

int op_describe_endpoints(struct api_request *rq)
{
    json_t *endpoint = json_object(), *list = json_array();
    char fallback[96];

    /* Without a Host header (HTTP/1.0), AWS's own name for the region. */
    snprintf(fallback, sizeof fallback, "dynamodb.%s.amazonaws.com", rq->scope.region);
    json_object_set_new(endpoint, "Address", json_string(rq->host ? rq->host : fallback));
    json_object_set_new(endpoint, "CachePeriodInMinutes", json_integer(ENDPOINT_CACHE_MINUTES));
    json_array_append_new(list, endpoint);
    rq->reply = json_object();
    json_object_set_new(rq->reply, "Endpoints", list);
    return 0;
}
