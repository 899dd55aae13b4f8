// SPDX-License-Identifier: MIT
//
// chat.mjs - seed 000: real-time chat in one table (PK/SK, GSI1, TTL on
// `ttl`), with the article's document-client code. Creates the table Chat
// (replacing one a previous run left), writes connections, rooms,
// memberships and 120 messages, and runs each access pattern.
//
//   node docs/examples/chat.mjs [--endpoint http://localhost:8000]

import { randomUUID } from "node:crypto";

import { check, clientConfig, freshTable, loadSdk, parseArgs, run } from "./common.mjs";

const TABLE_NAME = "Chat";

run(async () => {
  const args = parseArgs();
  const ddb = await loadSdk("@aws-sdk/client-dynamodb");
  const { DynamoDBDocumentClient, PutCommand, GetCommand, QueryCommand, BatchGetCommand } = await loadSdk("@aws-sdk/lib-dynamodb");
  const client = new ddb.DynamoDBClient(clientConfig(args));
  const ddbDocClient = DynamoDBDocumentClient.from(client);

  await freshTable(ddb, client, {
    TableName: TABLE_NAME,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    KeySchema: [
      { AttributeName: "PK", KeyType: "HASH" },
      { AttributeName: "SK", KeyType: "RANGE" },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: "GSI1",
        KeySchema: [
          { AttributeName: "GSI1PK", KeyType: "HASH" },
          { AttributeName: "GSI1SK", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  });
  await client.send(
    new ddb.UpdateTimeToLiveCommand({ TableName: TABLE_NAME, TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true } }),
  );
  const put = (Item) => ddbDocClient.send(new PutCommand({ TableName: TABLE_NAME, Item }));

  // $connect: both directions of the connection, expiring in 24 hours.
  const ttl = Math.floor(Date.now() / 1000) + 86400;
  const connectedAt = new Date().toISOString();
  for (const [connectionId, userId] of [["abc123", "user-1"], ["def456", "user-1"], ["ghi789", "user-2"]]) {
    await put({ PK: `CONNECTION#${connectionId}`, SK: "METADATA", userId, connectionId, connectedAt, ttl });
    await put({ PK: `USER#${userId}`, SK: `CONNECTION#${connectionId}`, connectionId, connectedAt, ttl });
  }
  await put({ PK: "USER#user-1", SK: "PROFILE", nickname: "Hanako", verificationStatus: "VERIFIED" });

  // 60 rooms for user-1 (room-00 also has user-2), each with a last message.
  const base = Date.parse("2026-02-28T10:00:00Z");
  for (let r = 0; r < 60; r++) {
    const chatRoomId = `room-${String(r).padStart(2, "0")}`;
    const participantIds = r === 0 ? ["user-1", "user-2"] : ["user-1"];
    await put({ PK: `CHATROOM#${chatRoomId}`, SK: "METADATA", participantIds, type: "group", name: `Room ${r}` });
    for (const userId of participantIds) {
      const joinedAt = new Date(base + r * 60000).toISOString();
      await put({ PK: `USER#${userId}`, SK: `CHATROOM#${chatRoomId}`, GSI1PK: `USERROOMS#${userId}`, GSI1SK: joinedAt, chatRoomId, joinedAt });
    }
  }
  // sendMessage: the message, then the room's LASTMESSAGE (two PutCommands, as the article does).
  for (let m = 0; m < 120; m++) {
    const timestamp = base + m * 1000;
    const content = `message ${m}`;
    const senderId = `user-${1 + (m % 2)}`;
    await put({ PK: "CHATROOM#room-00", SK: `MESSAGE#${timestamp}#${randomUUID()}`, senderId, content, messageType: "text" });
    const lastMessageAt = new Date(timestamp).toISOString();
    await put({ PK: "CHATROOM#room-00", SK: "LASTMESSAGE", lastMessageAt, lastMessage: content.slice(0, 100) });
  }
  for (let r = 1; r < 60; r++) {
    const PK = `CHATROOM#room-${String(r).padStart(2, "0")}`;
    await put({ PK, SK: "LASTMESSAGE", lastMessageAt: new Date(base).toISOString(), lastMessage: "welcome" });
  }

  // 1. connection id -> user (GetItem)
  const conn = await ddbDocClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK: "CONNECTION#abc123", SK: "METADATA" } }));
  console.log(`1. CONNECTION#abc123 belongs to ${conn.Item.userId}`);
  check(conn.Item.userId === "user-1", "connection owner");

  // 2. a user's connections; 3. a user's rooms (Query begins_with)
  const beginsWith = (pk, sk, extra = {}) =>
    ddbDocClient.send(
      new QueryCommand({
        TableName: TABLE_NAME,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
        ExpressionAttributeValues: { ":pk": pk, ":sk": sk },
        ...extra,
      }),
    );
  const conns = await beginsWith("USER#user-1", "CONNECTION#");
  console.log(`2. user-1 is connected as ${conns.Items.map((c) => c.connectionId).join(", ")}`);
  check(conns.Count === 2, "two connections");
  const participations = (await beginsWith("USER#user-1", "CHATROOM#")).Items;
  console.log(`3. user-1 is in ${participations.length} rooms`);
  check(participations.length === 60, "60 rooms");

  // The same memberships by join time on GSI1, newest first.
  const recent = await ddbDocClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: "GSI1",
      KeyConditionExpression: "GSI1PK = :pk",
      ExpressionAttributeValues: { ":pk": "USERROOMS#user-1" },
      ScanIndexForward: false,
      Limit: 3,
    }),
  );
  console.log(`   GSI1: latest joined ${recent.Items.map((i) => i.chatRoomId).join(", ")}`);

  // 4-7. room list: METADATA + LASTMESSAGE of every room, in BatchGet chunks of 100 keys.
  const batchKeys = participations.flatMap((p) => [
    { PK: `CHATROOM#${p.chatRoomId}`, SK: "METADATA" },
    { PK: `CHATROOM#${p.chatRoomId}`, SK: "LASTMESSAGE" },
  ]);
  const allItems = [];
  for (let i = 0; i < batchKeys.length; i += 100) {
    const chunk = batchKeys.slice(i, i + 100);
    const result = await ddbDocClient.send(new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: chunk } } }));
    allItems.push(...result.Responses[TABLE_NAME]);
    check(Object.keys(result.UnprocessedKeys ?? {}).length === 0, "no unprocessed keys");
  }
  console.log(`4-7. BatchGet of ${batchKeys.length} keys in ${Math.ceil(batchKeys.length / 100)} requests: ${allItems.length} items`);
  check(allItems.length === 120, "120 items");
  try {
    await ddbDocClient.send(new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: batchKeys.slice(0, 101) } } }));
    check(false, "101 keys must be refused");
  } catch (err) {
    console.log(`   101 keys in one request: ${err.name}: ...${err.message.slice(err.message.indexOf("' at ") + 2)}`);
    check(err.name === "ValidationException", "ValidationException");
  }

  // 5. the latest 50 messages, then back 50 at a time.
  let page = await beginsWith("CHATROOM#room-00", "MESSAGE#", { ScanIndexForward: false, Limit: 50 });
  const displayMessages = [...page.Items].reverse();
  console.log(`5. latest 50 messages of room-00: "${displayMessages[0].content}" .. "${displayMessages[49].content}"`);
  let total = page.Items.length;
  while (page.LastEvaluatedKey) {
    page = await beginsWith("CHATROOM#room-00", "MESSAGE#", { ScanIndexForward: false, Limit: 50, ExclusiveStartKey: page.LastEvaluatedKey });
    total += page.Items.length;
  }
  console.log(`   paged back through ${total} messages`);
  check(total === 120, "120 messages");

  // 8. profile
  const profile = await ddbDocClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK: "USER#user-1", SK: "PROFILE" } }));
  console.log(`8. profile of user-1: ${profile.Item.nickname} (${profile.Item.verificationStatus})`);
  console.log(`connection records expire at ${new Date(ttl * 1000).toISOString()} (ttl ${ttl})`);
  client.destroy();
});
