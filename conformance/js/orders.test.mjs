// SPDX-License-Identifier: MIT
//
// Seed 003 (SCHEMAS.md section 4): the general single table (PK/SK, GSI1,
// GSI2, TTL on expiresAt, a NEW_AND_OLD_IMAGES stream, point-in-time
// recovery, encryption and deletion protection), through the v3 document
// client with the article's functions (createOrder as one
// TransactWriteCommand, getUserOrders, getOrdersByStatus on GSI1,
// createSession with a TTL) and its stream read with
// @aws-sdk/client-dynamodb-streams and filtered as its Lambda mapping is.
// Everything holds on DynamoDB (GSI reads poll: they are eventually
// consistent there).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  UpdateContinuousBackupsCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from "@aws-sdk/client-dynamodb-streams";
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TABLE_NAME = "app-test-main";
let emu, client, streamsClient, ddb, streamArn;

before(async () => {
  emu = await startDdbemu();
  const config = { endpoint: emu.endpoint, region, credentials };
  client = new DynamoDBClient(config);
  streamsClient = new DynamoDBStreamsClient(config);
  ddb = DynamoDBDocumentClient.from(client);
  const s = (n) => ({ AttributeName: n, AttributeType: "S" });
  const gsi = (i) => ({
    IndexName: `GSI${i}`,
    KeySchema: [
      { AttributeName: `GSI${i}PK`, KeyType: "HASH" },
      { AttributeName: `GSI${i}SK`, KeyType: "RANGE" },
    ],
    Projection: { ProjectionType: "ALL" },
  });
  const created = await client.send(
    new CreateTableCommand({
      TableName: TABLE_NAME,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"].map(s),
      KeySchema: [
        { AttributeName: "PK", KeyType: "HASH" },
        { AttributeName: "SK", KeyType: "RANGE" },
      ],
      GlobalSecondaryIndexes: [gsi(1), gsi(2)],
      StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
      SSESpecification: { Enabled: true, SSEType: "KMS" },
      DeletionProtectionEnabled: true,
      Tags: [
        { Key: "Name", Value: TABLE_NAME },
        { Key: "Environment", Value: "test" },
      ],
    }),
  );
  streamArn = created.TableDescription.LatestStreamArn;
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: TABLE_NAME, TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true } }),
  );
  await client.send(
    new UpdateContinuousBackupsCommand({
      TableName: TABLE_NAME,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }),
  );
});

after(async () => {
  client?.destroy();
  streamsClient?.destroy();
  await emu?.stop();
});

// ---- the article's functions ----

function createOrderItem(order) {
  return {
    PK: `ORDER#${order.id}`,
    SK: "METADATA",
    GSI1PK: `STATUS#${order.status}`,
    GSI1SK: order.createdAt,
    GSI2PK: `USER#${order.userId}`,
    GSI2SK: `ORDER#${order.createdAt}`,
    entityType: "Order",
    id: order.id,
    userId: order.userId,
    status: order.status,
    totalAmount: order.totalAmount,
    createdAt: order.createdAt,
  };
}

function createUserOrderItem(order) {
  return {
    PK: `USER#${order.userId}`,
    SK: `ORDER#${order.createdAt}#${order.id}`,
    entityType: "UserOrder",
    orderId: order.id,
    status: order.status,
    totalAmount: order.totalAmount,
    createdAt: order.createdAt,
  };
}

async function createOrder(client, order, items) {
  const transactItems = [
    { Put: { TableName: TABLE_NAME, Item: createOrderItem(order), ConditionExpression: "attribute_not_exists(PK)" } },
    { Put: { TableName: TABLE_NAME, Item: createUserOrderItem(order) } },
    ...items.map((item) => ({
      Put: { TableName: TABLE_NAME, Item: { PK: `ORDER#${order.id}`, SK: `ITEM#${item.id}`, entityType: "OrderItem", ...item } },
    })),
  ];
  await client.send(new TransactWriteCommand({ TransactItems: transactItems }));
}

async function getUserOrders(client, userId, limit = 20, lastEvaluatedKey) {
  const result = await client.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :skPrefix)",
      ExpressionAttributeValues: { ":pk": `USER#${userId}`, ":skPrefix": "ORDER#" },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: lastEvaluatedKey,
    }),
  );
  return { orders: result.Items ?? [], nextKey: result.LastEvaluatedKey };
}

async function getOrdersByStatus(client, status, since) {
  const result = await client.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: "GSI1",
      KeyConditionExpression: "GSI1PK = :pk AND GSI1SK >= :since",
      ExpressionAttributeValues: { ":pk": `STATUS#${status}`, ":since": since },
    }),
  );
  return result.Items ?? [];
}

async function createSession(client, session) {
  const ttlSeconds = Math.floor(Date.now() / 1000) + 24 * 60 * 60;
  await client.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        PK: `SESSION#${session.id}`,
        SK: "DATA",
        entityType: "Session",
        userId: session.userId,
        data: session.data,
        expiresAt: ttlSeconds,
        createdAt: new Date().toISOString(),
      },
    }),
  );
  return ttlSeconds;
}

async function eventually(read, ok) {
  let result;
  for (let i = 0; i < 100; i++) {
    result = await read();
    if (ok(result)) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
  return result;
}

const order = (n, status, day) => ({
  id: `o${n}`,
  userId: "u1",
  status,
  totalAmount: 1000 * n,
  createdAt: `2026-02-${String(day).padStart(2, "0")}T10:00:00Z`,
});

// ---- the tests ----

test("the table as created: GSIs, TTL, stream, recovery, encryption, deletion protection", async () => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE_NAME }));
  assert.deepEqual(Table.GlobalSecondaryIndexes.map((g) => g.IndexName).sort(), ["GSI1", "GSI2"]);
  assert.deepEqual(Table.StreamSpecification, { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" });
  assert.equal(Table.SSEDescription.Status, "ENABLED");
  assert.equal(Table.SSEDescription.SSEType, "KMS");
  assert.equal(Table.DeletionProtectionEnabled, true);
  const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName: TABLE_NAME }));
  assert.equal(ttl.TimeToLiveDescription.AttributeName, "expiresAt");
  const backups = await client.send(new DescribeContinuousBackupsCommand({ TableName: TABLE_NAME }));
  assert.equal(backups.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus, "ENABLED");
  await assert.rejects(client.send(new DeleteTableCommand({ TableName: TABLE_NAME })), { name: "ValidationException" });
});

test("createOrder writes order, user copy and items at once; a re-submission changes nothing", async () => {
  const items = [
    { id: "i1", sku: "BOOK", quantity: 2 },
    { id: "i2", sku: "PEN", quantity: 5 },
  ];
  await createOrder(ddb, order(1, "PENDING", 1), items);
  await createOrder(ddb, order(2, "PENDING", 2), []);
  await createOrder(ddb, order(3, "SHIPPED", 3), [{ id: "i1", sku: "LAMP", quantity: 1 }]);

  // The same order again (say, a retried request): the condition on the
  // order cancels the whole transaction, the user's copy included.
  await assert.rejects(createOrder(ddb, { ...order(1, "PENDING", 1), totalAmount: 9 }, items), (err) => {
    assert.equal(err.name, "TransactionCanceledException");
    assert.deepEqual(
      err.CancellationReasons.map((r) => r.Code),
      ["ConditionalCheckFailed", "None", "None", "None"],
    );
    return true;
  });
  const o1 = await ddb.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK: "ORDER#o1", SK: "METADATA" } }));
  assert.equal(o1.Item.totalAmount, 1000);
  const lines = await ddb.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
      ExpressionAttributeValues: { ":pk": "ORDER#o1", ":p": "ITEM#" },
    }),
  );
  assert.deepEqual(
    lines.Items.map((i) => [i.sku, i.quantity, i.entityType]),
    [
      ["BOOK", 2, "OrderItem"],
      ["PEN", 5, "OrderItem"],
    ],
  );
});

test("getUserOrders: newest first, paged with the LastEvaluatedKey", async () => {
  const first = await getUserOrders(ddb, "u1", 2);
  assert.deepEqual(
    first.orders.map((o) => o.orderId),
    ["o3", "o2"],
  );
  assert.ok(first.nextKey);
  const second = await getUserOrders(ddb, "u1", 2, first.nextKey);
  assert.deepEqual(
    second.orders.map((o) => o.orderId),
    ["o1"],
  );
  assert.equal(second.nextKey, undefined);
});

test("getOrdersByStatus on GSI1, and the user's orders on GSI2", async () => {
  const pending = await eventually(
    () => getOrdersByStatus(ddb, "PENDING", "2026-02-01T00:00:00Z"),
    (r) => r.length === 2,
  );
  assert.deepEqual(
    pending.map((o) => o.id),
    ["o1", "o2"],
  );
  assert.deepEqual(
    (await getOrdersByStatus(ddb, "PENDING", "2026-02-02T00:00:00Z")).map((o) => o.id),
    ["o2"],
  );

  // Shipping an order moves it from one GSI1 partition to another.
  await ddb.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key: { PK: "ORDER#o1", SK: "METADATA" },
      UpdateExpression: "SET #s = :s, GSI1PK = :g",
      ConditionExpression: "#s = :from",
      ExpressionAttributeNames: { "#s": "status" },
      ExpressionAttributeValues: { ":s": "SHIPPED", ":g": "STATUS#SHIPPED", ":from": "PENDING" },
    }),
  );
  const shipped = await eventually(
    () => getOrdersByStatus(ddb, "SHIPPED", "2026-01-01T00:00:00Z"),
    (r) => r.length === 2,
  );
  assert.deepEqual(
    shipped.map((o) => o.id),
    ["o1", "o3"],
  );
  const byUser = await eventually(
    () =>
      ddb.send(
        new QueryCommand({
          TableName: TABLE_NAME,
          IndexName: "GSI2",
          KeyConditionExpression: "GSI2PK = :u AND begins_with(GSI2SK, :o)",
          ExpressionAttributeValues: { ":u": "USER#u1", ":o": "ORDER#" },
        }),
      ),
    (r) => r.Count === 3,
  );
  assert.deepEqual(
    byUser.Items.map((o) => o.id),
    ["o1", "o2", "o3"],
  );
});

test("the stream, read with client-dynamodb-streams and filtered on entityType as the Lambda mapping is", async () => {
  const expiresAt = await createSession(ddb, { id: "s1", userId: "u1", data: { theme: "dark" } });
  assert.ok(expiresAt > Date.now() / 1000);

  const records = [];
  const { StreamDescription } = await streamsClient.send(new DescribeStreamCommand({ StreamArn: streamArn }));
  for (const shard of StreamDescription.Shards) {
    let { ShardIterator } = await streamsClient.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }),
    );
    // An open shard never ends: read until a few pages in a row are empty
    // (DynamoDB may answer an empty page before the records that follow).
    for (let empty = 0; ShardIterator && empty < 3; ) {
      const page = await streamsClient.send(new GetRecordsCommand({ ShardIterator }));
      records.push(...page.Records);
      empty = page.Records.length === 0 ? empty + 1 : 0;
      ShardIterator = page.NextShardIterator;
    }
  }
  // Everything written: 4 + 2 + 3 transaction puts, the update, the session.
  assert.equal(records.length, 11);

  // { eventName: ["INSERT", "MODIFY"], dynamodb: { NewImage: { entityType: { S: ["Order"] } } } }
  const delivered = records.filter(
    (r) => ["INSERT", "MODIFY"].includes(r.eventName) && r.dynamodb?.NewImage?.entityType?.S === "Order",
  );
  // Records of one item come in order; items in other shards may interleave.
  assert.deepEqual(
    delivered.map((r) => [r.eventName, r.dynamodb.Keys.PK.S, r.dynamodb.NewImage.status.S]).sort(),
    [
      ["INSERT", "ORDER#o1", "PENDING"],
      ["INSERT", "ORDER#o2", "PENDING"],
      ["INSERT", "ORDER#o3", "SHIPPED"],
      ["MODIFY", "ORDER#o1", "SHIPPED"],
    ],
  );
  const o1 = delivered.filter((r) => r.dynamodb.Keys.PK.S === "ORDER#o1");
  assert.deepEqual(
    o1.map((r) => r.eventName),
    ["INSERT", "MODIFY"],
  );
  assert.equal(o1[1].dynamodb.OldImage.status.S, "PENDING");
  assert.equal(o1[1].dynamodb.StreamViewType, "NEW_AND_OLD_IMAGES");
  const session = records.find((r) => r.dynamodb.Keys.PK.S === "SESSION#s1");
  assert.equal(session.dynamodb.NewImage.expiresAt.N, String(expiresAt));
});
