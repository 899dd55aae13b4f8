# SPDX-License-Identifier: MIT
"""DynamoDB numbers: exact decimals of up to 38 significant digits with a
magnitude between 1E-130 and 9.9999999999999999999999999999999999999E+125,
stored and returned normalized (developer guide, "Data types": "Leading and
trailing zeroes are trimmed"; service quotas, "Data types - Number").

The low-level boto3 client passes number strings through untouched, so the
tests see exactly what the server returns.
"""

import re

import pytest

from util import (
    N,
    VALIDATION,
    assert_raw_error,
    get_item,
    random_string,
)


def put_get(dynamodb, table, value):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table, Item={"p": p, "v": value})
    return get_item(dynamodb, table, {"p": p})["v"]


def test_long_numbers_round_trip_normalized(raw, table_s):
    # 38 significant digits survive exactly; leading zeros, trailing zeros and
    # exponents are normalized away. Source: dynalite test/putItem.js "should
    # put really long numbers" (recorded against AWS).
    p = {"S": random_string()}
    item = {
        "p": p,
        "b": N("0000012345678901234567890123456789012345678"),
        "c": N("-00001.23456789012345678901234567890123456780000"),
        "d": N("0009.99999999999999999999999999999999999990000e125"),
        "e": N("-0009.99999999999999999999999999999999999990000e125"),
        "f": N("0001.000e-130"),
        "g": N("-0001.000e-130"),
    }
    assert raw("PutItem", {"TableName": table_s, "Item": item}).status == 200
    resp = raw("GetItem", {"TableName": table_s, "Key": {"p": p}, "ConsistentRead": True})
    assert resp.data == {"Item": {
        "p": p,
        "b": N("12345678901234567890123456789012345678"),
        "c": N("-1.2345678901234567890123456789012345678"),
        "d": N("9" * 38 + "0" * 88),
        "e": N("-" + "9" * 38 + "0" * 88),
        "f": N("0." + "0" * 129 + "1"),
        "g": N("-0." + "0" * 129 + "1"),
    }}


@pytest.mark.parametrize("given,returned", [
    ("1.50", "1.5"),        # issue #2; trailing zeros trimmed (developer guide)
    ("1e2", "100"),         # issue #2; exponents expanded (dynalite: -0015.789e6)
    ("1E2", "100"),
    ("-0", "0"),            # issue #2
    ("0.000", "0"),
    ("-0015.789e6", "-15789000"),   # dynalite test/putItem.js (recorded)
    ("00012", "12"),
    ("1.0", "1"),
    ("5e-1", "0.5"),
    ("123.456e2", "12345.6"),
    ("31415926535897932384626433832795028841e30",
     "31415926535897932384626433832795028841" + "0" * 30),
])
def test_number_normalization(dynamodb, table_s, given, returned):
    # Numbers come back in DynamoDB's canonical form: no exponent, no leading
    # or trailing zeros, no sign on zero. Sources: issue #2 (1.50, 1e2, -0),
    # dynalite test/putItem.js (recorded normalizations), scylla
    # test_number.py test_number_precision_allowed (run against AWS).
    assert put_get(dynamodb, table_s, N(given)) == N(returned)


def test_precision_examples_from_aws(dynamodb, table_s):
    # Source: scylla test_number.py test_number_precision_allowed (run
    # against AWS): 38-digit values are stored unchanged.
    for value in ("3.1415926535897932384626433832795028841",
                  "314159265358979323846.26433832795028841"):
        assert put_get(dynamodb, table_s, N(value)) == N(value)


@pytest.mark.parametrize("value,returned", [
    ("9.9999999999999999999999999999999999999E+125", "9" * 38 + "0" * 88),
    ("-9.9999999999999999999999999999999999999E+125", "-" + "9" * 38 + "0" * 88),
    ("1E-130", "0." + "0" * 129 + "1"),
    ("-1E-130", "-0." + "0" * 129 + "1"),
    ("1e125", "1" + "0" * 125),
    ("1e-100", "0." + "0" * 99 + "1"),
])
def test_magnitude_limits_are_accepted(dynamodb, table_s, value, returned):
    # Service quotas, "Data types - Number": positive range 1E-130 to
    # 9.9999999999999999999999999999999999999E+125, negative likewise.
    # scylla test_number.py test_number_magnitude_allowed (run against AWS).
    assert put_get(dynamodb, table_s, N(value)) == N(returned)


TOO_MANY = "Attempting to store more than 38 significant digits in a Number"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = ("Number underflow. Attempting to store a number with magnitude smaller than "
             "supported range")

# Source for every row: dynalite test/putItem.js "should return
# ValidationException for empty/invalid numbers in Item" (recorded).
BAD_NUMBERS = [
    ({"N": "123456789012345678901234567890123456789"}, TOO_MANY),
    ({"N": "-1.23456789012345678901234567890123456789"}, TOO_MANY),
    ({"N": "1e126"}, OVERFLOW),
    ({"N": "-1e126"}, OVERFLOW),
    ({"N": "1e-131"}, UNDERFLOW),
    ({"N": "-1e-131"}, UNDERFLOW),
    ({"N": ""}, "The parameter cannot be converted to a numeric value"),
    ({"N": "b"}, "The parameter cannot be converted to a numeric value: b"),
    ({"NS": ["1", ""]}, "The parameter cannot be converted to a numeric value"),
    ({"NS": ["1", "b", "a"]}, "The parameter cannot be converted to a numeric value: b"),
    ({"NS": ["1", "1"]}, "Input collection contains duplicates"),
    ({"S": "a", "N": ""}, "The parameter cannot be converted to a numeric value"),
    ({"S": "a", "N": "b"}, "The parameter cannot be converted to a numeric value: b"),
]


@pytest.mark.parametrize("value,message", BAD_NUMBERS, ids=[str(i) for i in range(len(BAD_NUMBERS))])
def test_invalid_numbers_are_refused(raw, dynamodb, table_s, value, message):
    p = {"S": random_string()}
    dynamodb.put_item(TableName=table_s, Item={"p": p, "v": N("1")})
    resp = raw("PutItem", {"TableName": table_s, "Item": {"p": p, "v": value}})
    assert_raw_error(resp, VALIDATION, message)
    assert get_item(dynamodb, table_s, {"p": p}) == {"p": p, "v": N("1")}


@pytest.mark.parametrize("value", ["1e126", "11e125", "1e-131", "0.9e-130",
                                   "9.99999999999999999999999999999999999999e125"])
def test_out_of_range_numbers_in_keys(raw, table_n, value):
    # The same limits apply to key values (dynalite test/getItem.js "should
    # return ValidationException for empty/invalid numbers in Key";
    # scylla test_number.py test_number_magnitude_not_allowed /
    # test_number_precision_not_allowed list the same boundaries).
    resp = raw("GetItem", {"TableName": table_n, "Key": {"p": N(value)}})
    assert_raw_error(resp, VALIDATION, re.compile(
        f"({re.escape(TOO_MANY)}|{re.escape(OVERFLOW)}|{re.escape(UNDERFLOW)})"))


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "-NaN", "dog", "-dog",
                                   "1.2.3", "1e"])
def test_non_numeric_strings_are_refused(raw, table_s, value):
    # Source: scylla test_manual_requests.py test_incorrect_numbers (run
    # against AWS: ValidationException mentioning "numeric"); the wording is
    # dynalite's recorded "The parameter cannot be converted to a numeric
    # value: <value>".
    resp = raw("PutItem", {"TableName": table_s,
                           "Item": {"p": {"S": random_string()}, "v": N(value)}})
    assert_raw_error(resp, VALIDATION, re.compile(
        r"The parameter cannot be converted to a numeric value(: .*)?"))


def test_number_keys_compare_by_value(dynamodb, table_n):
    # Numbers are stored normalized, so 1, 1.0 and 1e0 are the same key
    # (developer guide: leading and trailing zeroes are trimmed; STYLE.md's
    # key test example).
    k = "7" + random_string(6).translate(str.maketrans("abcdef", "123456"))
    dynamodb.put_item(TableName=table_n, Item={"p": N(k + ".0"), "v": {"S": "first"}})
    assert get_item(dynamodb, table_n, {"p": N(k)}) == {"p": N(k), "v": {"S": "first"}}
    dynamodb.put_item(TableName=table_n, Item={"p": N(k + "e0"), "v": {"S": "second"}})
    assert get_item(dynamodb, table_n, {"p": N(k + ".000")}) == {"p": N(k), "v": {"S": "second"}}
    dynamodb.delete_item(TableName=table_n, Key={"p": N(k + "0e-1")})
    assert get_item(dynamodb, table_n, {"p": N(k)}) is None


def test_number_set_members_are_normalized(dynamodb, table_s):
    # Members of a number set are numbers like any other (normalized).
    got = put_get(dynamodb, table_s, {"NS": ["1.50", "2e1", "-0.0100"]})
    assert sorted(got["NS"]) == sorted(["1.5", "20", "-0.01"])
