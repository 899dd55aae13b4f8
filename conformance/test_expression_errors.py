# SPDX-License-Identifier: MIT
"""Malformed expressions and the exact message DynamoDB answers for each, as a
table (STYLE B11: a language is tested with tables of cases).

Each row is sent to an existing item - a ConditionExpression through PutItem,
an UpdateExpression through UpdateItem - and must be refused with the text,
leaving the item as it was. The source of every text is given above its
group: dynalite's tests were recorded against AWS (for the conditions, its
test/scan.js recorded them for FilterExpression; DynamoDB names the parameter
in the prefix, "Invalid ConditionExpression: ..."), paritysuite captured
answers in several AWS regions, and the engine's own tables
(storage/tests/test_expr_parse.c) cite real AWS answers quoted by other public
projects. ProjectionExpression errors are in test_projection.py.
"""

import pytest

from unchanged import validation
from util import N, S, random_string

C = "ConditionExpression"
U = "UpdateExpression"


def syntax(param, token, near):
    return f'Invalid {param}: Syntax error; token: "{token}", near: "{near}"'


ROWS = [
    # --- syntax: real AWS answers pinned by public emulators (test_expr_parse.c)
    (C, "attribute_type()", None, None, syntax(C, ")", "()")),
    (C, "#l[abc].#c = :v", {"#l": "l", "#c": "c"}, {":v": N(1)}, syntax(C, "abc", "[abc]")),
    (C, "#l[-1].#c = :v", {"#l": "l", "#c": "c"}, {":v": N(1)}, syntax(C, "-", "[-1")),
    (C, "contains (themes, :theme", None, {":theme": S("x")}, syntax(C, "<EOF>", ":theme")),
    # paritysuite, captured in 10 AWS regions
    (C, "a = = b", None, None, syntax(C, "=", "= = b")),
    # --- syntax: scylla test_update_expression_name_token and moto (run
    # against AWS), via test_expr_parse.c
    (U, "SET _123 = :v", None, {":v": N(1)}, syntax(U, "_", "SET _123")),
    (U, "SET #l[0.#c = :v", {"#l": "l", "#c": "c"}, {":v": N(1)}, syntax(U, ".", "0.#c")),
    (U, "ADD numx", None, None, syntax(U, "<EOF>", "numx")),
    (U, "SET numx = numx * :v", None, {":v": N(1)}, syntax(U, "*", "numx * :v")),
    (U, "SET numx = numx / :v", None, {":v": N(1)}, syntax(U, "/", "numx / :v")),
    (U, "ADD numx 1", None, None, syntax(U, "1", "numx 1")),
    (U, "SET path = VALUE 1", None, None, syntax(U, "1", "VALUE 1")),
    # --- empty and oversized: dynalite test/updateItem.js; paritysuite
    (C, "", None, None, "Invalid ConditionExpression: The expression can not be empty;"),
    (U, "", None, None, "Invalid UpdateExpression: The expression can not be empty;"),
    (C, "a = :v" + " AND a = :v" * 373, None, {":v": S("x")},
     "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; "
     "expression size: 4109"),
    (U, "SET " + ", ".join(f"a{i} = :v" for i in range(500)), None, {":v": S("x")},
     "Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;"),
    # --- redundant parentheses: dynalite test/scan.js
    (C, "a=a and a > ((views))", None, None,
     "Invalid ConditionExpression: The expression has redundant parentheses;"),
    (C, "a=a AND ((a=a AND a=a)) AND a=a", None, None,
     "Invalid ConditionExpression: The expression has redundant parentheses;"),
    # --- functions: dynalite test/scan.js ("invalid function names",
    # "functions used incorrectly", "incorrect operands")
    (C, "a=a and whatever((:things)) > a", None, None,
     "Invalid ConditionExpression: Invalid function name; function: whatever"),
    (C, "attRIbute_exIsts((views), #a)", None, None,
     "Invalid ConditionExpression: Invalid function name; function: attRIbute_exIsts"),
    (C, "a=a and attribute_exists((views), (#a)) > b", None, None,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an "
     "expression; function: attribute_exists"),
    (C, "size(things)", None, None,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an "
     "expression; function: size"),
    (C, "attribute_exists(things, a) and a=a", None, None,
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
     "operator or function: attribute_exists, number of operands: 2"),
    (C, "begins_with(things, size(a), b)", None, None,
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
     "operator or function: begins_with, number of operands: 3"),
    (C, "attribute_type(a, :a)", None, {":a": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
     "or function: attribute_type, operand type: N"),
    (C, "begins_with(a, :a)", None, {":a": {"SS": ["1"]}},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
     "or function: begins_with, operand type: SS"),
    (C, "size(:a) > a", None, {":a": {"BOOL": True}},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; operator "
     "or function: size, operand type: BOOL"),
    (C, "attribute_exists(:a) and a=a", None, {":a": S("1")},
     "Invalid ConditionExpression: Operator or function requires a document path; operator "
     "or function: attribute_exists"),
    (C, "a = a AND #a = b AND :views > a", {"#a": "a"}, {":views": N(1)},
     "Invalid ConditionExpression: The first operand must be distinct from the remaining "
     "operands for this operator or function; operator: =, first operand: [a]"),
    # update functions in a condition and the reverse (real AWS, via
    # test_expr_parse.c)
    (C, "if_not_exists(s, :f) = :f", None, {":f": S("x")},
     "Invalid ConditionExpression: The function is not allowed in a condition expression; "
     "function: if_not_exists"),
    (U, "SET r = size(s)", None, None,
     "Invalid UpdateExpression: The function is not allowed in an update expression; "
     "function: size"),
    # --- reserved words: dynalite test/scan.js and test/updateItem.js
    (C, "attribute_exists(views, #a)", None, None,
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: views"),
    (U, " set #c = :c set abOrt = true ", {"#a": "a", "#b": "b"}, {":a": S("a"), ":b": S("a")},
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: abOrt"),
    (U, " remove Absolute ", None, None,
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Absolute"),
    # --- names and values: dynalite test/scan.js, test/updateItem.js
    (C, "attribute_exists(#Pictures.RearView, :a) and a=a", None, None,
     "Invalid ConditionExpression: An expression attribute name used in the document path is "
     "not defined; attribute name: #Pictures"),
    (C, "begins_with(:hello, #a, #b)", None, None,
     "Invalid ConditionExpression: An expression attribute value used in expression is not "
     "defined; attribute value: :hello"),
    (U, "SET #c = if_not_exists(:c)", {"#a": "a", "#b": "b"}, {":a": S("a"), ":b": S("a")},
     "Invalid UpdateExpression: An expression attribute name used in the document path is not "
     "defined; attribute name: #c"),
    (U, "SET #a = if_not_exists(:c)", {"#a": "a", "#b": "b"}, {":a": S("a"), ":b": S("a")},
     "Invalid UpdateExpression: An expression attribute value used in expression is not "
     "defined; attribute value: :c"),
    # --- BETWEEN bounds: dynalite test/deleteItem.js
    (C, "a between :b and :a", None, {":a": S("a"), ":b": N(1)},
     "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and "
     "upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: "
     "AttributeValue: {S:a}"),
    (C, "a between :b and :a", None, {":a": S("a"), ":b": S("b")},
     "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than "
     "or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: "
     "AttributeValue: {S:a}"),
    # --- update sections and paths: dynalite test/updateItem.js
    (U, "set a = #c set c = :d", {"#c": "c"}, {":d": N(1)},
     'Invalid UpdateExpression: The "SET" section can only be used once in an update '
     'expression;'),
    (U, "remove #d set a = b remove e", {"#d": "d"}, None,
     'Invalid UpdateExpression: The "REMOVE" section can only be used once in an update '
     'expression;'),
    (U, "add #d :e set a = b add e :f", {"#d": "d"}, {":e": N(1), ":f": N(1)},
     'Invalid UpdateExpression: The "ADD" section can only be used once in an update '
     'expression;'),
    (U, "delete #d :e set a = b delete #e :f", {"#d": "d", "#e": "e"},
     {":e": {"SS": ["a"]}, ":f": {"SS": ["a"]}},
     'Invalid UpdateExpression: The "DELETE" section can only be used once in an update '
     'expression;'),
    (U, "set #c = if_not_exist(:c) set c = d", None, None,
     "Invalid UpdateExpression: Invalid function name; function: if_not_exist"),
    (U, "set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", {"#c": "c", "#d": "[3]"},
     None,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [c, [1], a], path two: [c]"),
    (U, "set #c[3].#d = a, #c[3] = a", {"#c": "c", "#d": "[3]"}, None,
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"),
    (U, "set #c[3].#d = a, #c.#d[3] = if_not_exists(a)", {"#c": "c", "#d": "[3]"}, None,
     "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3], [3]]"),
    (U, "remove a.#c set a[1] = #d", {"#c": "c", "#d": "[3]"}, None,
     "Invalid UpdateExpression: Two document paths conflict with each other; must remove or "
     "rewrite one of these paths; path one: [a, c], path two: [a, [1]]"),
    # --- update operands: dynalite test/updateItem.js ("incorrect number of
    # operands", "operand path type", "incorrect types to functions")
    (U, "set a = list_append(c)", None, None,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; "
     "operator or function: list_append, number of operands: 1"),
    (U, "set a = if_not_exists(c)", None, None,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; "
     "operator or function: if_not_exists, number of operands: 1"),
    (U, "set a = if_not_exists(:a, c)", None, {":a": S("a")},
     "Invalid UpdateExpression: Operator or function requires a document path; operator or "
     "function: if_not_exists"),
    (U, "set a = list_append(:a, a)", None, {":a": S("a")},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: list_append, operand type: S"),
    (U, "set a = a + :j", None, {":j": {"L": []}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: +, operand type: L"),
    (U, "set a = :c - a", None, {":c": {"B": b"a"}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or "
     "function: -, operand type: B"),
    # ADD and DELETE operands: the typeSet form of real AWS answers quoted by
    # public clients (test_expr_parse.c; dynalite's older capture lacks it)
    (U, "add a.b :a", None, {":a": S("a")},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
     "operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"),
    (U, "delete a.b :a", None, {":a": N(1)},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: "
     "DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"),
    # --- unused names and values, after everything else: dynalite
    # test/updateItem.js; paritysuite
    (U, "SET a = :v", None, {":v": S("x"), ":u": S("y")},
     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}"),
    (U, "SET a = :v", {"#n": "x"}, {":v": S("x")},
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}"),
]


@pytest.mark.parametrize("param,expr,names,values,message", ROWS,
                         ids=[f"{r[0][:1]}:{r[1][:40]}" for r in ROWS])
def test_malformed_expression(dynamodb, table_s, param, expr, names, values, message):
    k = {"p": S(random_string())}
    dynamodb.put_item(TableName=table_s, Item={**k, "a": N(1), "s": S("x")})
    extra = {}
    if names is not None:
        extra["ExpressionAttributeNames"] = names
    if values is not None:
        extra["ExpressionAttributeValues"] = values
    if param == C:
        validation(dynamodb, table_s, k, message, dynamodb.put_item, TableName=table_s,
                   Item={**k, "a": N(2)}, ConditionExpression=expr, **extra)
    else:
        validation(dynamodb, table_s, k, message, dynamodb.update_item, TableName=table_s, Key=k,
                   UpdateExpression=expr, **extra)
