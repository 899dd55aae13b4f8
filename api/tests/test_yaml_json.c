/*
 * test_yaml_json.c - YAML templates as JSON: scalar types, CloudFormation's
 * short-form intrinsic functions, and what is refused.
 */
#include "api/design/yaml_json.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

/* The compact JSON of a YAML text, or the error as "line N: why". */
static char *convert(const char *yaml)
{
    char why[256], *out;
    size_t line = 0;
    json_t *v = yaml_to_json(yaml, strlen(yaml), &line, why, sizeof why);
    if (!v) {
        out = malloc(300);
        snprintf(out, 300, "line %zu: %s", line, why);
        return out;
    }
    out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    json_decref(v);
    return out;
}

static void check_yaml(const char *yaml, const char *want)
{
    char *got = convert(yaml);
    CHECK_STR_EQ(got, want);
    free(got);
}

static void test_plain_scalars_get_json_types_and_quoted_ones_stay_strings(void)
{
    check_yaml("a: 5\nb: '5'\nc: true\nd: ~\ne: 1.5\nf: PAY_PER_REQUEST\ng: -3\n",
               "{\"a\":5,\"b\":\"5\",\"c\":true,\"d\":null,\"e\":1.5,\"f\":\"PAY_PER_REQUEST\","
               "\"g\":-3}");
}

static void test_sequences_and_flow_style_nest(void)
{
    check_yaml("KeySchema:\n  - {AttributeName: PK, KeyType: HASH}\n  - [1, 2]\n",
               "{\"KeySchema\":[{\"AttributeName\":\"PK\",\"KeyType\":\"HASH\"},[1,2]]}");
}

static void test_short_form_intrinsics_become_their_long_form(void)
{
    check_yaml("a: !Ref Env\nb: !Sub '${X}-t'\nc: !GetAtt [T, Arn]\n",
               "{\"a\":{\"Ref\":\"Env\"},\"b\":{\"Fn::Sub\":\"${X}-t\"},"
               "\"c\":{\"Fn::GetAtt\":[\"T\",\"Arn\"]}}");
}

static void test_aliases_and_bad_yaml_are_refused_with_their_line(void)
{
    check_yaml("a: &x 1\nb: *x\n", "line 2: anchors and aliases are not supported");
    check_yaml("a: [1, 2\nb: 3\n", "line 2: did not find expected ',' or ']'");
    check_yaml("", "line 1: the document is empty");
}

int main(void)
{
    RUN(test_plain_scalars_get_json_types_and_quoted_ones_stay_strings);
    RUN(test_sequences_and_flow_style_nest);
    RUN(test_short_form_intrinsics_become_their_long_form);
    RUN(test_aliases_and_bad_yaml_are_refused_with_their_line);
    return check_report();
}
