/*
 * test_arn.c - TableName ARNs and ResourceArns: what resolves to a table, and
 * which of AWS's errors each malformed or foreign ARN gets (see arn.c).
 */
#include "api/wire/arn.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

#define ARN(region, account, resource) "arn:aws:dynamodb:" region ":" account ":" resource

static char *table_name(const char *arn, struct ddb_error *err)
{
    return arn_table_name(arn, strlen(arn), "us-east-1", err);
}

static void test_arn_table_name_of_this_account_and_region(void)
{
    struct ddb_error err = {0};
    char *name = table_name(ARN("us-east-1", "000000000000", "table/Orders.v2-x_y"), &err);

    CHECK_STR_EQ(name, "Orders.v2-x_y");
    CHECK_INT_EQ(err.code, DDB_OK);
    free(name);
}

static void check_refused(const char *arn, enum ddb_error_code code, const char *message)
{
    struct ddb_error err = {0};
    char *name = table_name(arn, &err);

    CHECK(name == NULL);
    CHECK_INT_EQ(err.code, code);
    if (message) CHECK_STR_EQ(err.message, message);
    ddb_error_clear(&err);
}

static void test_arn_table_name_refusals(void)
{
    check_refused(ARN("eu-west-1", "000000000000", "table/Orders"), DDB_VALIDATION,
                  "1 validation error detected: Invalid AWS region in "
                  "'arn:aws:dynamodb:eu-west-1:000000000000:table/Orders'");
    check_refused(ARN("us-east-1", "111122223333", "table/Orders"), DDB_ACCESS_DENIED,
                  "Access is denied");
    /* The account is checked before the region. */
    check_refused(ARN("eu-west-1", "111122223333", "table/Orders"), DDB_ACCESS_DENIED, NULL);
    check_refused(ARN("us-east-1", "000000000000", "table/Orders/index/g"), DDB_VALIDATION, NULL);
    check_refused(ARN("us-east-1", "000000000000", "table/Orders/stream/2026"), DDB_VALIDATION,
                  NULL);
    check_refused(ARN("us-east-1", "000000000000", "table/ab"), DDB_VALIDATION, NULL);
    check_refused(ARN("us-east-1", "000000000000", "backup/x"), DDB_VALIDATION, NULL);
    check_refused("arn:aws-cn:dynamodb:us-east-1:000000000000:table/Orders", DDB_VALIDATION, NULL);
    check_refused("arn:aws:s3:us-east-1:000000000000:table/Orders", DDB_VALIDATION, NULL);
    check_refused("arn:aws:dynamodb:us-east-1", DDB_VALIDATION, NULL);
}

static void check_resource(const char *arn, enum arn_family family, enum ddb_error_code code,
                           const char *message)
{
    struct ddb_error err = {0};
    struct arn_resource res;
    int rc = arn_resolve_resource(arn, strlen(arn), "us-east-1", family, &res, &err);

    CHECK_INT_EQ(rc, code == DDB_OK ? 0 : -1);
    CHECK_INT_EQ(err.code, code);
    if (message) CHECK_STR_EQ(err.message, message);
    ddb_error_clear(&err);
    arn_resource_clear(&res);
}

static void test_arn_resources_of_tags_and_policies(void)
{
    struct ddb_error err = {0};
    struct arn_resource res;
    const char *stream = ARN("us-east-1", "000000000000", "table/T01/stream/2026-01-01T00:00");

    CHECK_INT_EQ(
        arn_resolve_resource(stream, strlen(stream), "us-east-1", ARN_FOR_POLICY, &res, &err), 0);
    CHECK_INT_EQ(res.kind, ARN_STREAM);
    CHECK_STR_EQ(res.table_name, "T01");
    CHECK_STR_EQ(res.stream_label, "2026-01-01T00:00");
    arn_resource_clear(&res);

    check_resource(ARN("us-east-1", "000000000000", "table/T01"), ARN_FOR_TAGS, DDB_OK, NULL);
    check_resource("T01", ARN_FOR_TAGS, DDB_VALIDATION,
                   "One or more parameter values were invalid: ARNs must start with 'arn:': T01");
    check_resource(ARN("eu-west-1", "000000000000", "table/T01"), ARN_FOR_TAGS, DDB_VALIDATION,
                   "Invalid TableArn: Invalid ResourceArn provided as input "
                   "arn:aws:dynamodb:eu-west-1:000000000000:table/T01");
    check_resource(ARN("eu-west-1", "000000000000", "table/T01"), ARN_FOR_POLICY, DDB_VALIDATION,
                   "One or more parameter values were invalid: Invalid resource Arn: "
                   "arn:aws:dynamodb:eu-west-1:000000000000:table/T01");
    check_resource(ARN("us-east-1", "000000000000", "table/T01/index/g"), ARN_FOR_TAGS,
                   DDB_VALIDATION, NULL);
    check_resource(ARN("us-east-1", "000000000000", "table/T01/backup/0123"), ARN_FOR_POLICY,
                   DDB_VALIDATION,
                   "One or more parameter values were invalid: Provided Arn is not a DynamoDB "
                   "resource arn: arn:aws:dynamodb:us-east-1:000000000000:table/T01/backup/0123");
    check_resource(ARN("us-east-1", "999999999999", "table/T01"), ARN_FOR_POLICY, DDB_ACCESS_DENIED,
                   "Access is denied");
}

int main(void)
{
    RUN(test_arn_table_name_of_this_account_and_region);
    RUN(test_arn_table_name_refusals);
    RUN(test_arn_resources_of_tags_and_policies);
    return check_report();
}
