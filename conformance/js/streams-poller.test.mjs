// SPDX-License-Identifier: MIT
//
// The docs/examples/streams-poller.mjs poller against ddbemu, through the AWS
// SDK for JavaScript v3: seed 003's general table (PK/SK, GSI1, GSI2, TTL on
// expiresAt, a NEW_AND_OLD_IMAGES stream) and its Lambda filter (INSERT or
// MODIFY of an item whose NewImage.entityType is "Order").

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { DynamoDB } from "@aws-sdk/client-dynamodb";
import { DynamoDBStreams } from "@aws-sdk/client-dynamodb-streams";

import { createPoller, orderFilter } from "../../docs/examples/streams-poller.mjs";
import { credentials, region, startDdbemu } from "./ddbemu.mjs";

let emu, ddb, streams;

before(async () => {
  emu = await startDdbemu("--ttl-interval", "3600");
  const config = { endpoint: emu.endpoint, region, credentials };
  ddb = new DynamoDB(config);
  streams = new DynamoDBStreams(config);
});

after(async () => {
  await emu.stop();
});

async function createGeneralTable(name) {
  const s = (n) => ({ AttributeName: n, AttributeType: "S" });
  const gsi = (i) => ({
    IndexName: `GSI${i}`,
    KeySchema: [
      { AttributeName: `GSI${i}PK`, KeyType: "HASH" },
      { AttributeName: `GSI${i}SK`, KeyType: "RANGE" },
    ],
    Projection: { ProjectionType: "ALL" },
  });
  const desc = await ddb.createTable({
    TableName: name,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"].map(s),
    KeySchema: [
      { AttributeName: "PK", KeyType: "HASH" },
      { AttributeName: "SK", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [gsi(1), gsi(2)],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
  });
  await ddb.updateTimeToLive({
    TableName: name,
    TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
  });
  return desc.TableDescription.LatestStreamArn;
}

const order = (id, status) => ({
  PK: { S: `ORDER#${id}` },
  SK: { S: "METADATA" },
  GSI1PK: { S: `STATUS#${status}` },
  GSI1SK: { S: "2026-01-01T00:00:00Z" },
  entityType: { S: "Order" },
  status: { S: status },
});

test("the filter is seed 003's Lambda mapping", () => {
  const f = orderFilter();
  const rec = (eventName, entityType) => ({
    eventName,
    dynamodb: entityType ? { NewImage: { entityType: { S: entityType } } } : {},
  });
  assert.equal(f(rec("INSERT", "Order")), true);
  assert.equal(f(rec("MODIFY", "Order")), true);
  assert.equal(f(rec("REMOVE", "Order")), false);
  assert.equal(f(rec("INSERT", "User")), false);
  assert.equal(f(rec("REMOVE")), false);
});

test("the poller delivers order inserts and modifies only, in commit order", async () => {
  const table = `js_poller_${Date.now()}`;
  const streamArn = await createGeneralTable(table);
  const poller = createPoller({ streams, streamArn, startingPosition: "LATEST" });
  assert.deepEqual(await poller.poll(), []);

  // An order is created with one transaction (idempotent on PK), with the
  // user's copy of it; a user profile is written on its own.
  await ddb.transactWriteItems({
    TransactItems: [
      { Put: { TableName: table, Item: order("o1", "PENDING"),
               ConditionExpression: "attribute_not_exists(PK)" } },
      { Put: { TableName: table, Item: { PK: { S: "USER#u1" }, SK: { S: "ORDER#o1" },
                                         entityType: { S: "UserOrder" } } } },
    ],
  });
  await ddb.putItem({ TableName: table, Item: { PK: { S: "USER#u1" }, SK: { S: "PROFILE" },
                                                 entityType: { S: "User" } } });
  await ddb.putItem({ TableName: table, Item: order("o1", "SHIPPED") });
  await ddb.deleteItem({ TableName: table, Key: { PK: { S: "ORDER#o1" }, SK: { S: "METADATA" } } });

  const got = await poller.poll();
  assert.deepEqual(got.map((r) => [r.eventName, r.dynamodb.NewImage.status.S]),
                   [["INSERT", "PENDING"], ["MODIFY", "SHIPPED"]]);
  assert.equal(got[1].dynamodb.OldImage.status.S, "PENDING");
  assert.deepEqual(await poller.poll(), []);
});

test("TTL deletions reach the stream as REMOVE records of the service", async () => {
  const table = `js_ttl_${Date.now()}`;
  const streamArn = await createGeneralTable(table);
  const { now_ms: nowMs } = await emu.control("clock");
  const now = Math.floor(nowMs / 1000);
  await ddb.putItem({ TableName: table, Item: { ...order("o2", "PENDING"),
                                                expiresAt: { N: String(now + 3600) } } });
  // The seconds-vs-milliseconds mistake: this one never expires.
  await ddb.putItem({ TableName: table, Item: { ...order("o3", "PENDING"),
                                                expiresAt: { N: String(nowMs + 3600000) } } });
  await emu.control("clock", { advance_ms: 2 * 3600 * 1000 });
  assert.deepEqual(await emu.control("ttl/sweep", {}), { deleted: 1 });

  const all = createPoller({ streams, streamArn, startingPosition: "TRIM_HORIZON",
                             filter: () => true });
  const records = await all.poll();
  const removes = records.filter((r) => r.eventName === "REMOVE");
  assert.equal(removes.length, 1);
  assert.equal(removes[0].dynamodb.Keys.PK.S, "ORDER#o2");
  assert.deepEqual(removes[0].userIdentity, { PrincipalId: "dynamodb.amazonaws.com", Type: "Service" });
  // The seed's filter lets no REMOVE through.
  const orders = createPoller({ streams, streamArn, startingPosition: "TRIM_HORIZON" });
  assert.deepEqual((await orders.poll()).map((r) => r.eventName), ["INSERT", "INSERT"]);
});
