// SPDX-License-Identifier: MIT
//
// Seed 000 (SCHEMAS.md section 1): real-time chat in one table, through the
// AWS SDK for JavaScript v3's document client exactly as the article writes
// it (QueryCommand with begins_with, ScanIndexForward: false + Limit: 50,
// BatchGetCommand in chunks of 100 keys). Every assertion holds on DynamoDB;
// only the last test moves ddbemu's control clock (marked there).

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { DynamoDBClient, CreateTableCommand, UpdateTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from "@aws-sdk/lib-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TABLE_NAME = "Chat";
let emu, client, ddbDocClient;

before(async () => {
  emu = await startDdbemu("--ttl-interval", "3600");
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  ddbDocClient = DynamoDBDocumentClient.from(client);
  const s = (n) => ({ AttributeName: n, AttributeType: "S" });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE_NAME,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: ["PK", "SK", "GSI1PK", "GSI1SK"].map(s),
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
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: TABLE_NAME,
      TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true },
    }),
  );
});

after(async () => {
  client?.destroy();
  await emu?.stop();
});

// ---- the article's writes ----

async function connect(connectionId, userId) {
  const connectedAt = new Date().toISOString();
  const ttl = Math.floor(Date.now() / 1000) + 86400; // 24 hours ahead
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: { PK: `CONNECTION#${connectionId}`, SK: "METADATA", userId, connectionId, connectedAt, ttl },
    }),
  );
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: { PK: `USER#${userId}`, SK: `CONNECTION#${connectionId}`, connectionId, connectedAt, ttl },
    }),
  );
}

async function createRoom(chatRoomId, participantIds, joinedAt) {
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: { PK: `CHATROOM#${chatRoomId}`, SK: "METADATA", participantIds, type: "group", name: `Room ${chatRoomId}` },
    }),
  );
  for (const userId of participantIds) {
    await ddbDocClient.send(
      new PutCommand({
        TableName: TABLE_NAME,
        Item: {
          PK: `USER#${userId}`,
          SK: `CHATROOM#${chatRoomId}`,
          GSI1PK: `USERROOMS#${userId}`,
          GSI1SK: joinedAt,
          chatRoomId,
          joinedAt,
        },
      }),
    );
  }
}

async function sendMessage(chatRoomId, senderId, content, timestamp) {
  const messageId = await putMessage(chatRoomId, senderId, content, timestamp);
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        PK: `CHATROOM#${chatRoomId}`,
        SK: "LASTMESSAGE",
        lastMessageAt: new Date(timestamp).toISOString(),
        lastMessage: content.slice(0, 100),
      },
    }),
  );
  return messageId;
}

async function putMessage(chatRoomId, senderId, content, timestamp) {
  const messageId = randomUUID();
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: {
        PK: `CHATROOM#${chatRoomId}`,
        SK: `MESSAGE#${timestamp}#${messageId}`,
        senderId,
        content,
        messageType: "text",
      },
    }),
  );
  return messageId;
}

const getItem = async (PK, SK) =>
  (await ddbDocClient.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK, SK }, ConsistentRead: true }))).Item;

const beginsWith = async (pk, sk, extra = {}) =>
  ddbDocClient.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
      ExpressionAttributeValues: { ":pk": pk, ":sk": sk },
      ...extra,
    }),
  );

/** The article's chunked BatchGet, retrying UnprocessedKeys as DynamoDB may return some. */
async function batchGetAll(batchKeys) {
  const allItems = [];
  for (let i = 0; i < batchKeys.length; i += 100) {
    const chunk = batchKeys.slice(i, i + 100);
    let request = { [TABLE_NAME]: { Keys: chunk } };
    while (request && Object.keys(request).length > 0) {
      const result = await ddbDocClient.send(new BatchGetCommand({ RequestItems: request }));
      allItems.push(...result.Responses[TABLE_NAME]);
      request = result.UnprocessedKeys;
    }
  }
  return allItems;
}

// ---- the access patterns ----

test("connections: by connection id (GetItem) and by user (begins_with CONNECTION#)", async () => {
  await connect("abc123", "user-1");
  await connect("def456", "user-1");
  await connect("ghi789", "user-2");

  const meta = await getItem("CONNECTION#abc123", "METADATA");
  assert.equal(meta.userId, "user-1");
  assert.equal(typeof meta.ttl, "number");

  const result = await beginsWith("USER#user-1", "CONNECTION#", { ConsistentRead: true });
  assert.deepEqual(
    result.Items.map((i) => i.connectionId),
    ["abc123", "def456"],
  );
  assert.equal(result.Count, 2);
});

test("rooms: metadata, memberships by begins_with and on GSI1 by joinedAt, profile", async () => {
  await createRoom("room-1", ["user-1", "user-2"], "2026-02-28T10:00:00Z");
  await createRoom("room-2", ["user-1"], "2026-02-28T09:00:00Z");
  await ddbDocClient.send(
    new PutCommand({
      TableName: TABLE_NAME,
      Item: { PK: "USER#user-1", SK: "PROFILE", nickname: "one", verificationStatus: "VERIFIED" },
    }),
  );

  const room = await getItem("CHATROOM#room-1", "METADATA");
  assert.deepEqual(room.participantIds, ["user-1", "user-2"]);

  const rooms = await beginsWith("USER#user-1", "CHATROOM#", { ConsistentRead: true });
  assert.deepEqual(
    rooms.Items.map((i) => i.chatRoomId),
    ["room-1", "room-2"],
  );

  // GSI1: the same memberships in joinedAt order (eventually consistent: poll).
  let byJoin;
  for (let i = 0; i < 50; i++) {
    byJoin = await ddbDocClient.send(
      new QueryCommand({
        TableName: TABLE_NAME,
        IndexName: "GSI1",
        KeyConditionExpression: "GSI1PK = :pk",
        ExpressionAttributeValues: { ":pk": "USERROOMS#user-1" },
      }),
    );
    if (byJoin.Count === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(
    byJoin.Items.map((i) => i.chatRoomId),
    ["room-2", "room-1"],
  );

  const profile = await getItem("USER#user-1", "PROFILE");
  assert.equal(profile.verificationStatus, "VERIFIED");
});

test("messages: the latest 50 newest first, then back through 500 with ExclusiveStartKey", async () => {
  const base = 1709136000000;
  // 499 messages 50 at a time in parallel, then the newest one with its LASTMESSAGE.
  for (let i = 0; i < 499; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(i + 50, 499); j++) {
      batch.push(putMessage("room-1", "user-1", `message ${j}`, base + j * 1000));
    }
    await Promise.all(batch);
  }
  await sendMessage("room-1", "user-1", "message 499", base + 499 * 1000);

  const messages = await beginsWith("CHATROOM#room-1", "MESSAGE#", { ScanIndexForward: false, Limit: 50 });
  assert.equal(messages.Items.length, 50);
  assert.equal(messages.Items[0].content, "message 499");
  const displayMessages = messages.Items.reverse();
  assert.equal(displayMessages[0].content, "message 450");
  assert.ok(messages.LastEvaluatedKey);

  const seen = [];
  let lastEvaluatedKey;
  let pages = 0;
  do {
    const page = await beginsWith("CHATROOM#room-1", "MESSAGE#", {
      ScanIndexForward: false,
      Limit: 50,
      ExclusiveStartKey: lastEvaluatedKey,
    });
    if (page.Items.length > 0) pages++;
    assert.ok(page.Items.length === 50 || page.Items.length === 0);
    seen.push(...page.Items.map((m) => m.content));
    lastEvaluatedKey = page.LastEvaluatedKey;
  } while (lastEvaluatedKey);
  assert.equal(pages, 10);
  assert.deepEqual(
    seen,
    Array.from({ length: 500 }, (_, k) => `message ${499 - k}`),
  );

  const last = await getItem("CHATROOM#room-1", "LASTMESSAGE");
  assert.equal(last.lastMessage, "message 499");
  assert.equal(last.lastMessageAt, new Date(base + 499 * 1000).toISOString());
});

test("room list: METADATA + LASTMESSAGE for 60 rooms in 100-key chunks; 101 keys are refused", async () => {
  const participations = [];
  for (let r = 0; r < 60; r++) {
    const chatRoomId = `list-${String(r).padStart(2, "0")}`;
    await createRoom(chatRoomId, ["user-9"], `2026-03-01T00:00:${String(r).padStart(2, "0")}Z`);
    await sendMessage(chatRoomId, "user-9", `hello ${"x".repeat(150)} ${r}`, 1709136000000 + r);
    participations.push({ chatRoomId });
  }
  const mine = await beginsWith("USER#user-9", "CHATROOM#", { ConsistentRead: true });
  assert.deepEqual(
    mine.Items.map((p) => p.chatRoomId),
    participations.map((p) => p.chatRoomId),
  );

  const batchKeys = mine.Items.flatMap((p) => [
    { PK: `CHATROOM#${p.chatRoomId}`, SK: "METADATA" },
    { PK: `CHATROOM#${p.chatRoomId}`, SK: "LASTMESSAGE" },
  ]);
  assert.equal(batchKeys.length, 120);
  const allItems = await batchGetAll(batchKeys);
  assert.equal(allItems.length, 120);
  const got = new Set(allItems.map((i) => `${i.PK}|${i.SK}`));
  for (const k of batchKeys) assert.ok(got.has(`${k.PK}|${k.SK}`), `${k.PK} ${k.SK}`);
  for (const i of allItems.filter((i) => i.SK === "LASTMESSAGE")) assert.equal(i.lastMessage.length, 100);

  // One request of 100 keys is the maximum; 101 is a ValidationException.
  const hundred = await ddbDocClient.send(
    new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: batchKeys.slice(0, 100) } } }),
  );
  const unprocessed = hundred.UnprocessedKeys?.[TABLE_NAME]?.Keys?.length ?? 0;
  assert.equal(hundred.Responses[TABLE_NAME].length + unprocessed, 100);
  await assert.rejects(
    ddbDocClient.send(new BatchGetCommand({ RequestItems: { [TABLE_NAME]: { Keys: batchKeys.slice(0, 101) } } })),
    (err) => err.name === "ValidationException" && /100/.test(err.message),
  );
});

// Emulator control clock: DynamoDB deletes expired items within days; ddbemu
// is told to move its clock 25 hours ahead and sweep now.
test("control clock: connection records expire by TTL after 24 hours, messages stay", async () => {
  assert.ok(await getItem("CONNECTION#abc123", "METADATA"));
  let sweep = await emu.control("ttl/sweep", {});
  assert.equal(sweep.deleted, 0);

  await emu.control("clock", { advance_ms: 25 * 3600 * 1000 });
  sweep = await emu.control("ttl/sweep", {});
  assert.equal(sweep.deleted, 6); // three connections, two records each

  assert.equal(await getItem("CONNECTION#abc123", "METADATA"), undefined);
  const left = await beginsWith("USER#user-1", "CONNECTION#", { ConsistentRead: true });
  assert.equal(left.Count, 0);
  assert.ok(await getItem("CHATROOM#room-1", "LASTMESSAGE"));
  const messages = await beginsWith("CHATROOM#room-1", "MESSAGE#", { Select: "COUNT" });
  assert.equal(messages.Count, 500);
});
