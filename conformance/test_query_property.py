# SPDX-License-Identifier: MIT
"""Property test: random Query parameters against an in-test model of the table.

Three tables (number, string and binary sort keys) get random items in a few
partitions; a seeded generator then issues a few hundred random queries - every
sort-key operator, both directions, random Limit, random filters (expression
and legacy forms), Select COUNT and projections - follows LastEvaluatedKey to
the end, and compares what came back with the model:

  * the items, in order (sort-key order in DynamoDB's ordering: numbers by
    value, strings and binaries by unsigned bytes; reversed for
    ScanIndexForward=false), each exactly once;
  * ScannedCount summed over the pages = the items in the key range (Limit and
    the 1 MB page count items read, before the filter); Count = those that
    passed the filter; no page reads more than Limit items.

The model encodes DynamoDB's documented semantics (developerguide
Query.KeyConditionExpressions.html, Expressions.OperatorsAndFunctions.html):
comparisons with a missing attribute are false, <> is true, NOT negates.
"""

import random
from decimal import Decimal

import pytest

from paging import pages

SEED = 20261121
QUERIES_PER_TABLE = 120


def _rand_sort(rng, kind):
    if kind == "N":
        return Decimal(rng.randint(-40, 40)) / (2 if rng.random() < 0.3 else 1)
    if kind == "S":
        return "".join(rng.choice("abé\u00ff") for _ in range(rng.randint(1, 4)))
    return bytes(rng.choice([0, 1, 0x7F, 0x80, 0xFF]) for _ in range(rng.randint(1, 3)))


def _wire(kind, v):
    if kind == "N":
        return {"N": str(v)}
    if kind == "S":
        return {"S": v}
    return {"B": v}


def _order_key(kind, v):
    if kind == "N":
        return v
    if kind == "S":
        return v.encode("utf-8")
    return v


def _from_wire(kind, av):
    if kind == "N":
        return Decimal(av["N"])
    if kind == "S":
        return av["S"]
    return bytes(av["B"])


class Model:
    def __init__(self, kind):
        self.kind = kind
        self.parts = {}  # partition -> {order key -> item dict (wire form)}

    def add(self, p, sort, item):
        self.parts.setdefault(p, {})[_order_key(self.kind, sort)] = item

    def in_range(self, p, op, values):
        rows = sorted(self.parts.get(p, {}).items())
        ks = [_order_key(self.kind, v) for v in values]
        out = []
        for k, item in rows:
            if op is None:
                ok = True
            elif op == "=":
                ok = k == ks[0]
            elif op == "<":
                ok = k < ks[0]
            elif op == "<=":
                ok = k <= ks[0]
            elif op == ">":
                ok = k > ks[0]
            elif op == ">=":
                ok = k >= ks[0]
            elif op == "between":
                ok = ks[0] <= k <= ks[1]
            else:  # begins_with
                ok = k.startswith(ks[0])
            if ok:
                out.append(item)
        return out


def _filter_matches(flt, item):
    """Evaluates one of the generated filters on a wire-form item."""
    kind, args = flt
    a = Decimal(item["a"]["N"]) if "a" in item else None
    s = item["s"]["S"] if "s" in item else None
    if kind == "a=":
        return a is not None and a == args[0]
    if kind == "a<>":
        return a is None or a != args[0]
    if kind == "a<":
        return a is not None and a < args[0]
    if kind == "a>=":
        return a is not None and a >= args[0]
    if kind == "between":
        return a is not None and args[0] <= a <= args[1]
    if kind == "in":
        return a is not None and a in args
    if kind == "exists":
        return a is not None
    if kind == "not_exists":
        return a is None
    if kind == "begins":
        return s is not None and s.encode() .startswith(args[0].encode())
    if kind == "contains":
        return s is not None and args[0] in s
    if kind == "not_contains":  # legacy NOT_CONTAINS: a missing attribute matches neither
        return s is not None and args[0] not in s
    if kind == "and":
        return _filter_matches(args[0], item) and _filter_matches(args[1], item)
    if kind == "or":
        return _filter_matches(args[0], item) or _filter_matches(args[1], item)
    raise AssertionError(kind)


def _simple_filter(rng):
    n = lambda: Decimal(rng.randint(0, 9))  # noqa: E731
    choice = rng.choice(["a=", "a<>", "a<", "a>=", "between", "in", "exists", "not_exists",
                         "begins", "contains"])
    if choice == "between":
        lo, hi = sorted([n(), n()])
        return (choice, [lo, hi])
    if choice == "in":
        return (choice, [n() for _ in range(rng.randint(1, 3))])
    if choice in ("exists", "not_exists"):
        return (choice, [])
    if choice in ("begins", "contains"):
        return (choice, [rng.choice(["x", "y", "xy", "yx", "z"])])
    return (choice, [n()])


def _filter_expression(flt, values, counter):
    """(text, values) of a generated filter as a FilterExpression."""
    kind, args = flt

    def val(v):
        name = f":f{counter[0]}"
        counter[0] += 1
        values[name] = {"N": str(v)} if isinstance(v, Decimal) else {"S": v}
        return name

    if kind == "and" or kind == "or":
        return (f"({_filter_expression(args[0], values, counter)}) {kind.upper()} "
                f"({_filter_expression(args[1], values, counter)})")
    return {
        "a=": lambda: f"a = {val(args[0])}",
        "a<>": lambda: f"a <> {val(args[0])}",
        "a<": lambda: f"{val(args[0])} > a",
        "a>=": lambda: f"a >= {val(args[0])}",
        "between": lambda: f"a BETWEEN {val(args[0])} AND {val(args[1])}",
        "in": lambda: "a IN (" + ", ".join(val(v) for v in args) + ")",
        "exists": lambda: "attribute_exists(a)",
        "not_exists": lambda: "attribute_not_exists(a)",
        "begins": lambda: f"begins_with(s, {val(args[0])})",
        "contains": lambda: f"contains(s, {val(args[0])})",
    }[kind]()


LEGACY_FILTER_OPS = {"a=": ("a", "EQ"), "a<>": ("a", "NE"), "a<": ("a", "LT"),
                     "a>=": ("a", "GE"), "between": ("a", "BETWEEN"), "in": ("a", "IN"),
                     "exists": ("a", "NOT_NULL"), "not_exists": ("a", "NULL"),
                     "begins": ("s", "BEGINS_WITH"), "contains": ("s", "CONTAINS")}


def _legacy_filter(flts):
    """QueryFilter for filters on distinct attributes (one condition per attribute)."""
    out = {}
    for kind, args in flts:
        attr, op = LEGACY_FILTER_OPS[kind]
        out[attr] = {"ComparisonOperator": op, "AttributeValueList": [
            {"N": str(v)} if isinstance(v, Decimal) else {"S": v} for v in args]}
    return out


@pytest.fixture(scope="module", params=["N", "S", "B"])
def model_table(request, dynamodb, _session_tables):
    kind = request.param
    rng = random.Random(f"{SEED}-{kind}")
    name = _session_tables(("p", "S"), ("c", kind))
    model = Model(kind)
    writes = []
    for part in ("p0", "p1", "p2"):
        seen = set()
        for _ in range(45):
            sort = _rand_sort(rng, kind)
            if _order_key(kind, sort) in seen:
                continue
            seen.add(_order_key(kind, sort))
            item = {"p": {"S": part}, "c": _wire(kind, sort)}
            if rng.random() < 0.8:
                item["a"] = {"N": str(rng.randint(0, 9))}
            if rng.random() < 0.8:
                item["s"] = {"S": "".join(rng.choice("xyz") for _ in range(rng.randint(1, 3)))}
            model.add(part, sort, item)
            writes.append(item)
    for start in range(0, len(writes), 25):
        dynamodb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": w}} for w in writes[start:start + 25]]})
    return name, kind, model


def _random_query(rng, kind, model):
    p = rng.choice(["p0", "p1", "p2", "nope"])
    existing = [_from_wire(kind, i["c"]) for i in model.parts.get(p, {}).values()] or [
        _rand_sort(rng, kind)]
    pick = lambda: rng.choice(existing) if rng.random() < 0.6 else _rand_sort(rng, kind)  # noqa
    ops = [None, "=", "<", "<=", ">", ">=", "between"] + (["begins_with"] if kind != "N" else [])
    op = rng.choice(ops)
    values = []
    if op == "between":
        values = sorted([pick(), pick()], key=lambda v: _order_key(kind, v))
    elif op == "begins_with":
        base = pick()
        values = [base[:rng.randint(1, len(base))]]
    elif op:
        values = [pick()]
    forward = rng.random() < 0.5
    limit = rng.choice([None, None, 1, 2, 3, 5, 8, 13, 40])
    filters = []
    if rng.random() < 0.5:
        filters.append(_simple_filter(rng))
        if rng.random() < 0.3:
            filters.append(_simple_filter(rng))
    legacy = rng.random() < 0.35 and all(f[0] in LEGACY_FILTER_OPS for f in filters) and (
        len({LEGACY_FILTER_OPS[f[0]][0] for f in filters}) == len(filters))
    use_or = len(filters) == 2 and rng.random() < 0.5
    select_count = rng.random() < 0.15
    project = not select_count and rng.random() < 0.2
    return p, op, values, forward, limit, filters, legacy, use_or, select_count, project


def _request(name, kind, q):
    p, op, values, forward, limit, filters, legacy, use_or, select_count, project = q
    args = {"TableName": name, "ScanIndexForward": forward, "ConsistentRead": True}
    if limit:
        args["Limit"] = limit
    if select_count:
        args["Select"] = "COUNT"
    if legacy:
        conds = {"p": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": p}]}}
        legacy_op = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE",
                     "between": "BETWEEN", "begins_with": "BEGINS_WITH"}
        if op:
            conds["c"] = {"ComparisonOperator": legacy_op[op],
                          "AttributeValueList": [_wire(kind, v) for v in values]}
        args["KeyConditions"] = conds
        if filters:
            args["QueryFilter"] = _legacy_filter(filters)
            if use_or:
                args["ConditionalOperator"] = "OR"
        if project:
            args["AttributesToGet"] = ["c", "a"]
        return args
    vals = {":p": {"S": p}}
    text = "p = :p"
    if op in ("=", "<", "<=", ">", ">="):
        text += f" AND c {op} :v0"
        vals[":v0"] = _wire(kind, values[0])
    elif op == "between":
        text += " AND c BETWEEN :v0 AND :v1"
        vals[":v0"] = _wire(kind, values[0])
        vals[":v1"] = _wire(kind, values[1])
    elif op == "begins_with":
        text += " AND begins_with(c, :v0)"
        vals[":v0"] = _wire(kind, values[0])
    args["KeyConditionExpression"] = text
    if filters:
        counter = [0]
        flt = filters[0] if len(filters) == 1 else ("or" if use_or else "and", filters)
        args["FilterExpression"] = _filter_expression(flt, vals, counter)
    if project:
        args["ProjectionExpression"] = "c, a"
    args["ExpressionAttributeValues"] = vals
    return args


def test_random_queries_match_the_model(dynamodb, model_table):
    name, kind, model = model_table
    rng = random.Random(f"{SEED}-queries-{kind}")
    for n in range(QUERIES_PER_TABLE):
        q = _random_query(rng, kind, model)
        p, op, values, forward, limit, filters, legacy, use_or, select_count, project = q
        in_range = model.in_range(p, op, values)
        if not forward:
            in_range = list(reversed(in_range))
        if filters:
            flt = filters[0] if len(filters) == 1 else ("or" if use_or else "and", filters)
            want = [i for i in in_range if _filter_matches(flt, i)]
        else:
            want = in_range
        if project:
            want = [{k: v for k, v in i.items() if k in ("c", "a")} for i in want]
        args = _request(name, kind, q)
        got, scanned, count = [], 0, 0
        for page in pages(dynamodb.query, **args):
            if limit:
                assert page["ScannedCount"] <= limit, (n, args)
            scanned += page["ScannedCount"]
            count += page["Count"]
            if select_count:
                assert "Items" not in page
            else:
                assert page["Count"] == len(page["Items"])
                got.extend(page["Items"])
        assert scanned == len(in_range), (n, args)
        assert count == len(want), (n, args)
        if not select_count:
            assert got == want, (n, args)
