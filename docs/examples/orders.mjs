// SPDX-License-Identifier: MIT
//
// orders.mjs - seed 003: the general single table (PK/SK, GSI1, GSI2, TTL
// on expiresAt, a NEW_AND_OLD_IMAGES stream, point-in-time recovery,
// encryption, deletion protection) with the article's functions: orders
// created by one idempotent transaction, a user's orders newest first,
// orders by status on GSI1, a session with a TTL, and the stream read with
// @aws-sdk/client-dynamodb-streams through the article's Lambda filter.
//
//   node docs/examples/orders.mjs [--endpoint http://localhost:8000]

import { check, clientConfig, freshTable, loadSdk, parseArgs, run } from "./common.mjs";

const TABLE_NAME = "app-dev-main";

run(async () => {
  const args = parseArgs();
  const sdk = await loadSdk("@aws-sdk/client-dynamodb");
  const streams = await loadSdk("@aws-sdk/client-dynamodb-streams");
  const { DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } = await loadSdk("@aws-sdk/lib-dynamodb");
  const client = new sdk.DynamoDBClient(clientConfig(args));
  const ddb = DynamoDBDocumentClient.from(client);
  const streamsClient = new streams.DynamoDBStreamsClient(clientConfig(args));

  const gsi = (i) => ({
    IndexName: `GSI${i}`,
    KeySchema: [
      { AttributeName: `GSI${i}PK`, KeyType: "HASH" },
      { AttributeName: `GSI${i}SK`, KeyType: "RANGE" },
    ],
    Projection: { ProjectionType: "ALL" },
  });
  await freshTable(sdk, client, {
    TableName: TABLE_NAME,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    KeySchema: [
      { AttributeName: "PK", KeyType: "HASH" },
      { AttributeName: "SK", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [gsi(1), gsi(2)],
    StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
    SSESpecification: { Enabled: true, SSEType: "KMS" },
    DeletionProtectionEnabled: true,
  });
  await client.send(
    new sdk.UpdateTimeToLiveCommand({
      TableName: TABLE_NAME,
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    }),
  );
  await client.send(
    new sdk.UpdateContinuousBackupsCommand({
      TableName: TABLE_NAME,
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    }),
  );

  const createOrder = async (order, items) => {
    const transactItems = [
      {
        Put: {
          TableName: TABLE_NAME,
          Item: {
            PK: `ORDER#${order.id}`, SK: "METADATA",
            GSI1PK: `STATUS#${order.status}`, GSI1SK: order.createdAt,
            GSI2PK: `USER#${order.userId}`, GSI2SK: `ORDER#${order.createdAt}`,
            entityType: "Order", id: order.id, userId: order.userId, status: order.status,
            totalAmount: order.totalAmount, createdAt: order.createdAt,
          },
          ConditionExpression: "attribute_not_exists(PK)", // idempotency
        },
      },
      {
        Put: {
          TableName: TABLE_NAME,
          Item: {
            PK: `USER#${order.userId}`, SK: `ORDER#${order.createdAt}#${order.id}`,
            entityType: "UserOrder", orderId: order.id, status: order.status,
            totalAmount: order.totalAmount, createdAt: order.createdAt,
          },
        },
      },
      ...items.map((item) => ({
        Put: { TableName: TABLE_NAME, Item: { PK: `ORDER#${order.id}`, SK: `ITEM#${item.id}`, entityType: "OrderItem", ...item } },
      })),
    ];
    await ddb.send(new TransactWriteCommand({ TransactItems: transactItems }));
  };

  const orders = [
    { id: "o1", userId: "u1", status: "PENDING", totalAmount: 3200, createdAt: "2026-02-01T10:00:00Z" },
    { id: "o2", userId: "u1", status: "PENDING", totalAmount: 800, createdAt: "2026-02-02T10:00:00Z" },
    { id: "o3", userId: "u2", status: "SHIPPED", totalAmount: 1500, createdAt: "2026-02-03T10:00:00Z" },
  ];
  for (const o of orders) await createOrder(o, [{ id: "i1", sku: "BOOK", quantity: 1 }, { id: "i2", sku: "PEN", quantity: 3 }]);
  console.log(`created ${orders.length} orders (order + user copy + 2 items, one transaction each)`);
  try {
    await createOrder(orders[0], []);
    check(false, "a re-submitted order must be refused");
  } catch (err) {
    console.log(`re-submitting o1: ${err.name} [${err.CancellationReasons.map((r) => r.Code).join(", ")}]`);
  }

  // getUserOrders: newest first, 20 a page
  const mine = await ddb.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :skPrefix)",
      ExpressionAttributeValues: { ":pk": "USER#u1", ":skPrefix": "ORDER#" },
      ScanIndexForward: false,
      Limit: 20,
    }),
  );
  console.log(`getUserOrders u1: ${mine.Items.map((o) => `${o.orderId} (${o.totalAmount})`).join(", ")}`);
  check(mine.Count === 2, "two orders for u1");

  // o1 ships: its GSI1 key moves with its status.
  await ddb.send(
    new UpdateCommand({
      TableName: TABLE_NAME,
      Key: { PK: "ORDER#o1", SK: "METADATA" },
      UpdateExpression: "SET #s = :s, GSI1PK = :g",
      ExpressionAttributeNames: { "#s": "status" },
      ExpressionAttributeValues: { ":s": "SHIPPED", ":g": "STATUS#SHIPPED" },
    }),
  );
  // getOrdersByStatus on GSI1
  for (const status of ["PENDING", "SHIPPED"]) {
    const r = await ddb.send(
      new QueryCommand({
        TableName: TABLE_NAME,
        IndexName: "GSI1",
        KeyConditionExpression: "GSI1PK = :pk AND GSI1SK >= :since",
        ExpressionAttributeValues: { ":pk": `STATUS#${status}`, ":since": "2026-02-01T00:00:00Z" },
      }),
    );
    console.log(`getOrdersByStatus ${status}: ${r.Items.map((o) => o.id).join(", ")}`);
  }

  // createSession: a TTL in epoch seconds, 24 hours ahead.
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 60 * 60;
  await ddb.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        PK: "SESSION#s1",
        SK: "DATA",
        entityType: "Session",
        userId: "u1",
        data: { cart: ["BOOK"] },
        expiresAt, // Unix epoch seconds
        createdAt: new Date().toISOString(),
      },
    }),
  );
  console.log(`session s1 expires at ${new Date(expiresAt * 1000).toISOString()}`);

  // The stream, through the Lambda mapping's filter:
  // { eventName: ["INSERT", "MODIFY"], dynamodb: { NewImage: { entityType: { S: ["Order"] } } } }
  const { Table } = await client.send(new sdk.DescribeTableCommand({ TableName: TABLE_NAME }));
  const StreamArn = Table.LatestStreamArn;
  const { StreamDescription } = await streamsClient.send(new streams.DescribeStreamCommand({ StreamArn }));
  const records = [];
  for (const shard of StreamDescription.Shards) {
    let { ShardIterator } = await streamsClient.send(
      new streams.GetShardIteratorCommand({ StreamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }),
    );
    for (let empty = 0; ShardIterator && empty < 3; ) {
      const page = await streamsClient.send(new streams.GetRecordsCommand({ ShardIterator }));
      records.push(...page.Records);
      empty = page.Records.length ? 0 : empty + 1;
      ShardIterator = page.NextShardIterator;
    }
  }
  const delivered = records.filter((r) => ["INSERT", "MODIFY"].includes(r.eventName) && r.dynamodb.NewImage?.entityType?.S === "Order");
  console.log(`stream: ${records.length} records, ${delivered.length} through the filter:`);
  for (const r of delivered) {
    const old = r.dynamodb.OldImage ? ` (was ${r.dynamodb.OldImage.status.S})` : "";
    console.log(`  ${r.eventName} ${r.dynamodb.Keys.PK.S} ${r.dynamodb.NewImage.status.S}${old}`);
  }
  check(delivered.length === 4, "three inserts and one modify");
  client.destroy();
  streamsClient.destroy();
});
