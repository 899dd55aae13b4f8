# SPDX-License-Identifier: MIT
"""Paging helpers for the Query/Scan/batch tests: walk every page of a read the
way an application (or boto3's paginator) does, following LastEvaluatedKey,
and snapshot a table so that a refused request can be shown to change nothing.
"""

import json


def pages(call, **kwargs):
    """Yields every page of call(**kwargs), following LastEvaluatedKey."""
    args = dict(kwargs)
    while True:
        page = call(**args)
        yield page
        lek = page.get("LastEvaluatedKey")
        if not lek:
            return
        args["ExclusiveStartKey"] = lek


def all_pages(call, **kwargs):
    """(items, pages) of a whole read: items in page order, and the list of pages."""
    got = list(pages(call, **kwargs))
    items = [item for page in got for item in page.get("Items", [])]
    return items, got


def scan_all(client, table, **kwargs):
    """Every item of table, by a consistent Scan (with kwargs) over all its pages."""
    items, _ = all_pages(client.scan, TableName=table, ConsistentRead=True, **kwargs)
    return items


def key_of(item, names):
    return tuple(json.dumps(item[n], sort_keys=True) for n in names)


def canonical(items):
    """A multiset-comparable form of items (order-independent)."""
    return sorted(json.dumps(i, sort_keys=True) for i in items)


def snapshot(client, table):
    """Every item of table (consistent Scan), in a comparable form."""
    items, _ = all_pages(client.scan, TableName=table, ConsistentRead=True)
    return canonical(items)
