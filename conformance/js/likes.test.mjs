// SPDX-License-Identifier: MIT
//
// Seed 001 (SCHEMAS.md section 2): likes and their notifications across five
// tables, through @aws-sdk/client-dynamodb. The requests are the article's
// (its Go SDK expression builder's output: "attribute_exists (#0)" with a
// space, UpdateExpressions ending in a newline), plus SCHEMAS.md's condition
// that refuses a like that already exists. Every assertion holds on
// DynamoDB; only the last test moves ddbemu's control clock (marked there).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  CreateTableCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  PutItemCommand,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const FAVORITE = "comments-favorite";
const COUNT = "comments-favorite-count";
const UNREAD = "notification-fav-to-my-comment-unread";
const UNREAD_COUNT = "notification-fav-to-my-comment-unread-count";
const READ = "notification-fav-to-my-comment-read";

let emu, client;

const S = (v) => ({ S: v });
const N = (v) => ({ N: String(v) });

async function createTable(TableName, hash, range, lsi) {
  const attrs = new Map([[hash[0], hash[1]]]);
  if (range) attrs.set(range[0], range[1]);
  if (lsi) attrs.set(lsi.range[0], lsi.range[1]);
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [...attrs].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
      KeySchema: [
        { AttributeName: hash[0], KeyType: "HASH" },
        ...(range ? [{ AttributeName: range[0], KeyType: "RANGE" }] : []),
      ],
      ...(lsi && {
        LocalSecondaryIndexes: [
          {
            IndexName: lsi.name,
            KeySchema: [
              { AttributeName: hash[0], KeyType: "HASH" },
              { AttributeName: lsi.range[0], KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    }),
  );
}

before(async () => {
  emu = await startDdbemu("--ttl-interval", "3600");
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials, maxAttempts: 10 });
  await createTable(FAVORITE, ["commentId", "S"], ["userId", "S"]);
  await createTable(COUNT, ["commentId", "S"]);
  await createTable(UNREAD, ["userId", "S"], ["commentId", "S"], { name: "numFavorite-index", range: ["numFavorite", "N"] });
  await createTable(UNREAD_COUNT, ["userId", "S"], ["commentId", "S"], { name: "count-index", range: ["count", "N"] });
  await createTable(READ, ["userId", "S"], ["readAt", "S"]);
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: READ, TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true } }),
  );
});

after(async () => {
  client?.destroy();
  await emu?.stop();
});

const now = () => new Date().toISOString();

/** Posting a comment creates its counter and its empty unread notification. */
async function postComment(author, commentId) {
  await client.send(new PutItemCommand({ TableName: COUNT, Item: { commentId: S(commentId), count: N(0) } }));
  await client.send(
    new PutItemCommand({
      TableName: UNREAD,
      Item: { userId: S(author), commentId: S(commentId), lastupdate: S(now()), numFavorite: N(0), favUserIds: { L: [] } },
    }),
  );
  await client.send(
    new PutItemCommand({ TableName: UNREAD_COUNT, Item: { userId: S(author), commentId: S(commentId), count: N(0) } }),
  );
}

const like = (userId, commentId, author) =>
  client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Put: {
            Item: { userId: S(userId), commentId: S(commentId) },
            TableName: FAVORITE,
            ConditionExpression: "attribute_not_exists (#0)",
            ExpressionAttributeNames: { "#0": "userId" },
          },
        },
        {
          Update: {
            ConditionExpression: "attribute_exists (#0)",
            ExpressionAttributeNames: { "#0": "count" },
            ExpressionAttributeValues: { ":0": N(1) },
            Key: { commentId: S(commentId) },
            TableName: COUNT,
            UpdateExpression: "SET #0 = #0 + :0\n",
          },
        },
        {
          Update: {
            ExpressionAttributeNames: { "#0": "lastupdate", "#1": "numFavorite", "#2": "favUserIds" },
            ExpressionAttributeValues: { ":2": { L: [S(userId)] }, ":0": S(now()), ":1": N(1) },
            Key: { userId: S(author), commentId: S(commentId) },
            TableName: UNREAD,
            UpdateExpression: "SET #0 = :0, #1 = #1 + :1, #2 = list_append(#2, :2)\n",
          },
        },
        {
          Update: {
            ExpressionAttributeNames: { "#0": "count" },
            ExpressionAttributeValues: { ":0": N(1) },
            Key: { userId: S(author), commentId: S(commentId) },
            TableName: UNREAD_COUNT,
            UpdateExpression: "SET #0 = #0 + :0\n",
          },
        },
      ],
    }),
  );

const unlike = (userId, commentId) =>
  client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Delete: {
            Key: { commentId: S(commentId), userId: S(userId) },
            TableName: FAVORITE,
            ConditionExpression: "attribute_exists (#0)",
            ExpressionAttributeNames: { "#0": "userId" },
          },
        },
        {
          Update: {
            ConditionExpression: "attribute_exists (#0)",
            ExpressionAttributeNames: { "#0": "count" },
            ExpressionAttributeValues: { ":0": N(1) },
            Key: { commentId: S(commentId) },
            TableName: COUNT,
            UpdateExpression: "SET #0 = #0 - :0\n",
          },
        },
      ],
    }),
  );

/** Reads the unread record, then resets it, zeroes its count and puts a read record, in one transaction. */
async function markRead(author, commentId, ttlDays = 7) {
  const unread = await getItem(UNREAD, { userId: S(author), commentId: S(commentId) });
  const readAt = new Date().toISOString();
  const expires = Math.floor(Date.now() / 1000) + ttlDays * 86400;
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        {
          Update: {
            Key: { userId: S(author), commentId: S(commentId) },
            TableName: UNREAD,
            UpdateExpression: "SET #0 = :0, #1 = :1, #2 = :2",
            ExpressionAttributeNames: { "#0": "lastupdate", "#1": "numFavorite", "#2": "favUserIds" },
            ExpressionAttributeValues: { ":0": S(readAt), ":1": N(0), ":2": { L: [] } },
          },
        },
        {
          Update: {
            Key: { userId: S(author), commentId: S(commentId) },
            TableName: UNREAD_COUNT,
            UpdateExpression: "SET #0 = :0",
            ExpressionAttributeNames: { "#0": "count" },
            ExpressionAttributeValues: { ":0": N(0) },
          },
        },
        {
          Put: {
            TableName: READ,
            Item: { userId: S(author), readAt: S(readAt), commentId: S(commentId), favUserIds: unread.favUserIds, ttl: N(expires) },
            ConditionExpression: "attribute_not_exists(readAt)",
          },
        },
      ],
    }),
  );
  return { readAt, expires };
}

const getItem = async (TableName, Key) =>
  (await client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }))).Item;
const count = async (commentId) => Number((await getItem(COUNT, { commentId: S(commentId) })).count.N);

async function queryAll(input) {
  const items = [];
  let ExclusiveStartKey;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...page.Items);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** The unread notifications with at least one like (the LSI on numFavorite). */
const unreadNotifications = (author) =>
  queryAll({
    TableName: UNREAD,
    IndexName: "numFavorite-index",
    KeyConditionExpression: "userId = :u AND numFavorite >= :one",
    ExpressionAttributeValues: { ":u": S(author), ":one": N(1) },
    ConsistentRead: true,
  });

/** The unread total: the count LSI's records with count >= 1, summed. */
const unreadTotal = async (author) =>
  (
    await queryAll({
      TableName: UNREAD_COUNT,
      IndexName: "count-index",
      KeyConditionExpression: "userId = :u AND #c >= :one",
      ExpressionAttributeNames: { "#c": "count" },
      ExpressionAttributeValues: { ":u": S(author), ":one": N(1) },
      ConsistentRead: true,
    })
  ).reduce((sum, i) => sum + Number(i.count.N), 0);

test("like, double-like refused with one reason per item, unlike, like again", async () => {
  await postComment("author-1", "c-1");
  await like("fan-1", "c-1", "author-1");
  assert.equal(await count("c-1"), 1);

  await assert.rejects(like("fan-1", "c-1", "author-1"), (err) => {
    assert.equal(err.name, "TransactionCanceledException");
    assert.deepEqual(
      err.CancellationReasons.map((r) => r.Code),
      ["ConditionalCheckFailed", "None", "None", "None"],
    );
    return true;
  });
  assert.equal(await count("c-1"), 1);
  const unread = await getItem(UNREAD, { userId: S("author-1"), commentId: S("c-1") });
  assert.equal(unread.numFavorite.N, "1");
  assert.deepEqual(unread.favUserIds, { L: [S("fan-1")] });

  await unlike("fan-1", "c-1");
  assert.equal(await count("c-1"), 0);
  assert.equal(await getItem(FAVORITE, { commentId: S("c-1"), userId: S("fan-1") }), undefined);
  // An unlike of a like that is gone cancels both items.
  await assert.rejects(unlike("fan-1", "c-1"), (err) => {
    assert.equal(err.name, "TransactionCanceledException");
    assert.deepEqual(
      err.CancellationReasons.map((r) => r.Code),
      ["ConditionalCheckFailed", "None"],
    );
    return true;
  });
  // The notification is not taken back; a new like adds to it.
  await like("fan-1", "c-1", "author-1");
  assert.equal(await count("c-1"), 1);
  const again = await getItem(UNREAD, { userId: S("author-1"), commentId: S("c-1") });
  assert.equal(again.numFavorite.N, "2");
});

test("a like of a comment without a counter cancels all four writes", async () => {
  await postComment("author-1", "no-such-comment");
  await client.send(new DeleteItemCommand({ TableName: COUNT, Key: { commentId: S("no-such-comment") } }));
  await assert.rejects(like("fan-1", "no-such-comment", "author-1"), (err) => {
    assert.equal(err.name, "TransactionCanceledException");
    assert.deepEqual(
      err.CancellationReasons.map((r) => r.Code),
      ["None", "ConditionalCheckFailed", "None", "None"],
    );
    return true;
  });
  assert.equal(await getItem(FAVORITE, { commentId: S("no-such-comment"), userId: S("fan-1") }), undefined);
  const unread = await getItem(UNREAD, { userId: S("author-1"), commentId: S("no-such-comment") });
  assert.equal(unread.numFavorite.N, "0");
});

test("unread notifications through the LSIs; contains() on the favUserIds list", async () => {
  await postComment("author-2", "c-a");
  await postComment("author-2", "c-b");
  await postComment("author-2", "c-c");
  await like("fan-1", "c-a", "author-2");
  await like("fan-2", "c-a", "author-2");
  await like("fan-3", "c-c", "author-2");

  const notes = await unreadNotifications("author-2");
  assert.deepEqual(
    notes.map((n) => [n.commentId.S, n.numFavorite.N]),
    [
      ["c-c", "1"],
      ["c-a", "2"],
    ],
  );
  assert.deepEqual(
    notes[1].favUserIds.L.map((v) => v.S),
    ["fan-1", "fan-2"],
  );
  assert.equal(await unreadTotal("author-2"), 3);

  const byFan2 = await queryAll({
    TableName: UNREAD,
    KeyConditionExpression: "userId = :u",
    FilterExpression: "contains(favUserIds, :f)",
    ExpressionAttributeValues: { ":u": S("author-2"), ":f": S("fan-2") },
  });
  assert.deepEqual(
    byFan2.map((n) => n.commentId.S),
    ["c-a"],
  );
});

// LSIs exist only from CreateTable (UpdateTable has no field for them); a GSI
// can come later. The article's "comments a user liked" index, added late:
test("a GSI added later by UpdateTable is backfilled from the likes already there", async () => {
  await client.send(
    new UpdateTableCommand({
      TableName: FAVORITE,
      AttributeDefinitions: [
        { AttributeName: "userId", AttributeType: "S" },
        { AttributeName: "commentId", AttributeType: "S" },
      ],
      GlobalSecondaryIndexUpdates: [
        {
          Create: {
            IndexName: "userId-commentId-index",
            KeySchema: [
              { AttributeName: "userId", KeyType: "HASH" },
              { AttributeName: "commentId", KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "KEYS_ONLY" },
          },
        },
      ],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 600 }, { TableName: FAVORITE });
  let liked;
  for (let i = 0; i < 600; i++) {
    const desc = await client.send(new DescribeTableCommand({ TableName: FAVORITE }));
    if (desc.Table.GlobalSecondaryIndexes[0].IndexStatus === "ACTIVE") {
      liked = await queryAll({
        TableName: FAVORITE,
        IndexName: "userId-commentId-index",
        KeyConditionExpression: "userId = :u",
        ExpressionAttributeValues: { ":u": S("fan-1") },
      });
      if (liked.length === 2) break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.deepEqual(
    liked.map((i) => i.commentId.S),
    ["c-1", "c-a"],
  );
});

test("200 concurrent likes from 200 users, with 40 repeats, leave every counter consistent", async () => {
  await postComment("author-3", "c-hot");
  const users = Array.from({ length: 200 }, (_, i) => `user-${String(i).padStart(3, "0")}`);
  const attempts = [...users, ...users.slice(0, 40)];

  // DynamoDB refuses a transaction that collides with another one on an item
  // (reason TransactionConflict): the application retries those.
  const likeWithRetry = async (user) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await like(user, "c-hot", "author-3");
        return "liked";
      } catch (err) {
        if (err.name !== "TransactionCanceledException") throw err;
        const codes = err.CancellationReasons.map((r) => r.Code);
        if (codes[0] === "ConditionalCheckFailed") return "refused";
        if (!codes.includes("TransactionConflict") || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 10 + Math.random() * 50));
      }
    }
  };
  const outcomes = await Promise.all(attempts.map(likeWithRetry));
  assert.equal(outcomes.filter((o) => o === "liked").length, 200);
  assert.equal(outcomes.filter((o) => o === "refused").length, 40);

  assert.equal(await count("c-hot"), 200);
  const likers = await queryAll({
    TableName: FAVORITE,
    KeyConditionExpression: "commentId = :c",
    ExpressionAttributeValues: { ":c": S("c-hot") },
    ConsistentRead: true,
  });
  assert.deepEqual(
    likers.map((i) => i.userId.S),
    users,
  );
  const unread = await getItem(UNREAD, { userId: S("author-3"), commentId: S("c-hot") });
  assert.equal(unread.numFavorite.N, "200");
  assert.deepEqual(
    unread.favUserIds.L.map((v) => v.S).sort(),
    users,
  );
  assert.equal((await getItem(UNREAD_COUNT, { userId: S("author-3"), commentId: S("c-hot") })).count.N, "200");
});

// Emulator control clock: the read record's TTL is 7 days ahead; ddbemu is
// told to move its clock 8 days and sweep now (DynamoDB deletes within days).
test("control clock: mark as read in one transaction; the read record expires by TTL", async () => {
  await postComment("author-4", "c-r");
  await like("fan-1", "c-r", "author-4");
  await like("fan-2", "c-r", "author-4");
  assert.equal(await unreadTotal("author-4"), 2);

  const { readAt, expires } = await markRead("author-4", "c-r");
  assert.deepEqual(await unreadNotifications("author-4"), []);
  assert.equal(await unreadTotal("author-4"), 0);
  const unread = await getItem(UNREAD, { userId: S("author-4"), commentId: S("c-r") });
  assert.deepEqual(unread.favUserIds, { L: [] });
  const read = await getItem(READ, { userId: S("author-4"), readAt: S(readAt) });
  assert.deepEqual(read.favUserIds.L, [S("fan-1"), S("fan-2")]);
  assert.equal(read.ttl.N, String(expires));
  // A like after reading starts a new unread notification beside the read one.
  await like("fan-3", "c-r", "author-4");
  assert.equal(await unreadTotal("author-4"), 1);

  await emu.control("clock", { advance_ms: 6 * 86400 * 1000 });
  await emu.control("ttl/sweep", {});
  assert.ok(await getItem(READ, { userId: S("author-4"), readAt: S(readAt) }));
  await emu.control("clock", { advance_ms: 2 * 86400 * 1000 });
  await emu.control("ttl/sweep", {});
  assert.equal(await getItem(READ, { userId: S("author-4"), readAt: S(readAt) }), undefined);
  assert.ok(await getItem(UNREAD, { userId: S("author-4"), commentId: S("c-r") }));
});
