# SPDX-License-Identifier: MIT
"""Refused writes change nothing: helpers for the expression and item tests.

Every failing call in test_condition_expression.py, test_update_expression.py,
test_legacy_params.py, test_return_values.py and test_expression_errors.py goes
through one of these: they read the item, make the call, check the exact error
(__type and message), and read the item again to prove the write did not
happen (STYLE B11).
"""

from util import VALIDATION, assert_error, assert_raw_error, client_error, get_item


def refused(client, table, key, code, message, call, *args, **kwargs):
    """call(*args, **kwargs) must fail with (code, message) and leave the item
    at key as it was. Returns the ClientError."""
    before = get_item(client, table, key)
    err = client_error(call, *args, **kwargs)
    assert_error(err, code, message)
    assert get_item(client, table, key) == before, "a refused write changed the item"
    return err


def refused_raw(raw, client, table, key, operation, body, message, type_=VALIDATION):
    """The same through the raw JSON helper, for requests boto3 would not send
    (or whose answer it does not parse). Returns the parsed error body."""
    before = get_item(client, table, key)
    resp = raw(operation, body)
    assert_raw_error(resp, type_, message)
    assert get_item(client, table, key) == before, "a refused write changed the item"
    return resp.data


def validation(client, table, key, message, call, *args, **kwargs):
    """refused() for a ValidationException."""
    return refused(client, table, key, "ValidationException", message, call, *args, **kwargs)


def conditional(client, table, key, call, *args, **kwargs):
    """refused() for a failed condition: DynamoDB's one text for it (dynalite
    test/helpers.js assertConditional, recorded against AWS)."""
    return refused(client, table, key, "ConditionalCheckFailedException",
                   "The conditional request failed", call, *args, **kwargs)
