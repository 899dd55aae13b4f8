# SPDX-License-Identifier: MIT
"""Emulator only: which tables a request sees.

Like DynamoDB Local without -sharedDb, ddbemu keeps one namespace of tables
per (access key id, region) of the SigV4 credential; with --shared-db every
credential and region shares one namespace. (DynamoDB Local usage notes: "If
you omit -sharedDb, the database file is named myaccesskeyid_region.db, with
the AWS access key ID and AWS Region as they appear in your application
configuration"; with -sharedDb "Every program that connects to DynamoDB
accesses this file.")
"""

import re

import pytest

from util import assert_error, client_error, delete_table_quietly, random_string, unique_table_name

pytestmark = pytest.mark.usefixtures("emulator")


def create(client, name):
    client.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])


def all_tables(client):
    names, start = [], None
    while True:
        page = client.list_tables(**({"ExclusiveStartTableName": start} if start else {}))
        names += page["TableNames"]
        start = page.get("LastEvaluatedTableName")
        if not start:
            return names


def test_access_keys_have_separate_namespaces(client_for):
    alice = client_for(access_key="alice" + random_string(6))
    bob = client_for(access_key="bob" + random_string(6))
    name = unique_table_name()
    create(alice, name)
    try:
        assert name in all_tables(alice)
        assert name not in all_tables(bob)
        err = client_error(bob.describe_table, TableName=name)
        assert_error(err, "ResourceNotFoundException",
                     f"Requested resource not found: Table: {name} not found")
        # Bob may create his own table of the same name; items stay apart.
        create(bob, name)
        alice.put_item(TableName=name, Item={"p": {"S": "k"}, "who": {"S": "alice"}})
        bob.put_item(TableName=name, Item={"p": {"S": "k"}, "who": {"S": "bob"}})
        assert alice.get_item(TableName=name, Key={"p": {"S": "k"}})["Item"]["who"] == {"S": "alice"}
        assert bob.get_item(TableName=name, Key={"p": {"S": "k"}})["Item"]["who"] == {"S": "bob"}
        delete_table_quietly(bob, name)
        assert alice.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
    finally:
        delete_table_quietly(alice, name)
        delete_table_quietly(bob, name)


def test_regions_have_separate_namespaces_and_arns(client_for):
    key = "carol" + random_string(6)
    east = client_for(access_key=key, region="us-east-1")
    west = client_for(access_key=key, region="eu-west-1")
    name = unique_table_name()
    create(east, name)
    try:
        arn = east.describe_table(TableName=name)["Table"]["TableArn"]
        assert re.fullmatch(rf"arn:aws:dynamodb:us-east-1:\d{{12}}:table/{name}", arn), arn
        assert name not in all_tables(west)
        create(west, name)
        arn_west = west.describe_table(TableName=name)["Table"]["TableArn"]
        assert re.fullmatch(rf"arn:aws:dynamodb:eu-west-1:\d{{12}}:table/{name}", arn_west)
        # one fixed account id for every namespace
        assert arn.split(":")[4] == arn_west.split(":")[4]
    finally:
        delete_table_quietly(east, name)
        delete_table_quietly(west, name)


def test_same_credential_sees_its_tables_on_every_connection(client_for):
    key = "dave" + random_string(6)
    first, second = client_for(access_key=key), client_for(access_key=key)
    name = unique_table_name()
    create(first, name)
    try:
        second.put_item(TableName=name, Item={"p": {"S": "x"}})
        assert first.get_item(TableName=name, Key={"p": {"S": "x"}})["Item"] == {"p": {"S": "x"}}
    finally:
        delete_table_quietly(first, name)


def test_shared_db_puts_everyone_in_one_namespace(start_server):
    server = start_server("--shared-db")
    alice = server.client(access_key="alice" + random_string(6), region="us-east-1")
    bob = server.client(access_key="bob" + random_string(6), region="ap-northeast-1")
    name = unique_table_name()
    create(alice, name)
    assert name in all_tables(bob)
    bob.put_item(TableName=name, Item={"p": {"S": "k"}, "who": {"S": "bob"}})
    assert alice.get_item(TableName=name, Key={"p": {"S": "k"}})["Item"]["who"] == {"S": "bob"}
    err = client_error(create, bob, name)
    assert_error(err, "ResourceInUseException", re.compile(rf".*Table already exists: {name}"))
    bob.delete_table(TableName=name)
    assert name not in all_tables(alice)
