// SPDX-License-Identifier: MIT
//
// Seed design 005: semantic search over chat messages, through the pinned AWS
// SDK for JavaScript v3 and its document client (docs/examples/chat-search.mjs
// is the same application as a runnable example; docs/seed-designs.md).
//
// Messages are keyed by room (PK `room`, SK `sk`); the vector index ByMeaning
// over `embedding` is partitioned by room (HASH), filters by sender
// (INLINE_FILTER) and projects the text. Every search is checked against a
// brute-force COSINE computed here over the messages the test wrote, so the
// assertions hold on DynamoDB as well, except where equal scores meet: AWS
// orders ties arbitrarily, so ties are compared as sets.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { DescribeTableCommand, DynamoDBClient, CreateTableCommand } from "@aws-sdk/client-dynamodb";
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  SearchVectorsCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";

import { embed, MESSAGES, sortKey } from "../../docs/examples/chat-search.mjs";
import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TABLE = "ChatMessages";
const INDEX = "ByMeaning";
let emu, doc;
// What the table holds, as the test wrote it: sk -> message.
const stored = new Map();

before(async () => {
  emu = await startDdbemu();
  const client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  doc = DynamoDBDocumentClient.from(client);
  await client.send(new CreateTableCommand({
    TableName: TABLE,
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: ["room", "sk", "sender"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    KeySchema: [{ AttributeName: "room", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
    VectorIndexes: [{
      IndexName: INDEX,
      VectorAttribute: { AttributeName: "embedding" },
      SearchSchema: [
        { AttributeName: "room", SearchSchemaElementType: "HASH" },
        { AttributeName: "sender", SearchSchemaElementType: "INLINE_FILTER" },
      ],
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["text"] },
      Dimensions: 8,
      DistanceFunction: "COSINE",
    }],
  }));
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (Table.TableStatus === "ACTIVE" && Table.VectorIndexes.every((v) => v.IndexStatus === "ACTIVE")) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (const [room, minute, id, sender, text] of MESSAGES) await post({ room, sk: sortKey(minute, id), sender, text });
});

after(async () => {
  await emu?.stop();
});

async function post(m) {
  const embedding = embed(m.text);
  const Item = { ...m, ...(embedding && { embedding }) };
  await doc.send(new PutCommand({ TableName: TABLE, Item }));
  stored.set(`${m.room}|${m.sk}`, Item);
}

function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return Math.min(2, Math.max(0, 1 - ab / Math.sqrt(aa * bb)));
}

/** The TopK nearest stored messages of a room (and sender), by brute force. */
function expected(question, room, topK, sender) {
  const q = embed(question);
  return [...stored.values()]
    .filter((m) => m.room === room && m.embedding && (!sender || m.sender === sender))
    .map((m) => ({ sk: m.sk, score: cosine(q, m.embedding) }))
    .sort((x, y) => x.score - y.score)
    .slice(0, topK);
}

async function search(question, room, { topK = 3, sender, ...extra } = {}) {
  return doc.send(new SearchVectorsCommand({
    TableName: TABLE, IndexName: INDEX, SearchVector: embed(question), TopK: topK,
    SearchConditionExpression: "#room = :room" + (sender ? " AND sender = :sender" : ""),
    ExpressionAttributeNames: { "#room": "room" },
    ExpressionAttributeValues: { ":room": room, ...(sender && { ":sender": sender }) },
    ...extra,
  }));
}

/** Results match the brute force: same scores in order; equal scores as sets. */
function assertMatches(out, want) {
  const got = out.SearchResults;
  assert.equal(got.length, want.length);
  got.forEach((r, i) => assert.ok(Math.abs(r.Score - want[i].score) < 1e-6, `score ${i}: ${r.Score} vs ${want[i].score}`));
  const groups = (list, score) => list.map((x) => [Math.round(score(x) * 1e6), x]);
  const byScore = (pairs, key) => {
    const m = new Map();
    for (const [s, x] of pairs) m.set(s, [...(m.get(s) || []), key(x)].sort());
    return m;
  };
  assert.deepEqual(byScore(groups(got, (r) => r.Score), (r) => r.Item.sk), byScore(groups(want, (w) => w.score), (w) => w.sk));
}

test("messages without a topic are stored but left out of the index", async () => {
  const all = await search("release", "general", { topK: 100 });
  const indexed = [...stored.values()].filter((m) => m.room === "general" && m.embedding).length;
  assert.equal(all.SearchResults.length, indexed);
  assert.ok(!all.SearchResults.some((r) => r.Item.text === "ok"));
});

test("a question finds the nearest messages of its room, with their text and without the vector", async () => {
  for (const [question, room] of [["why did the release tests fail?", "general"], ["coffee or tea at the weekend", "random"],
    ["lunch meeting", "general"], ["dynamodb index design", "general"]]) {
    const out = await search(question, room, { ReturnConsumedCapacity: "TOTAL" });
    assertMatches(out, expected(question, room, 3));
    for (const r of out.SearchResults) {
      assert.equal(r.Item.room, room);
      assert.equal(r.Item.embedding, undefined);
      assert.equal(r.Item.text, stored.get(`${room}|${r.Item.sk}`).text);
    }
    assert.ok(out.ConsumedCapacity.VectorSearchRequestBytes >= 1024);
  }
});

test("the sender filter keeps one person's messages", async () => {
  const out = await search("why did the release tests fail?", "general", { sender: "ben" });
  assertMatches(out, expected("why did the release tests fail?", "general", 3, "ben"));
  assert.ok(out.SearchResults.every((r) => r.Item.sender === "ben"));
  const nobody = await search("release", "general", { sender: "nobody" });
  assert.deepEqual(nobody.SearchResults, []);
});

test("an edit moves a message to its new meaning and reports vector write bytes", async () => {
  const key = { room: "general", sk: sortKey(4, "m04") };
  const text = "Lunch moved: the database migration call is at noon";
  const out = await doc.send(new UpdateCommand({
    TableName: TABLE, Key: key, UpdateExpression: "SET #t = :t, embedding = :e",
    ExpressionAttributeNames: { "#t": "text" },
    ExpressionAttributeValues: { ":t": text, ":e": embed(text) },
    ReturnConsumedCapacity: "INDEXES",
  }));
  assert.ok(out.ConsumedCapacity.VectorIndexes[INDEX].VectorWriteRequestBytes >= 1024);
  stored.set(`general|${key.sk}`, { ...stored.get(`general|${key.sk}`), text, embedding: embed(text) });
  assertMatches(await search("database migration", "general"), expected("database migration", "general", 3));
  // An attribute the index does not hold costs it nothing.
  const reacted = await doc.send(new UpdateCommand({
    TableName: TABLE, Key: key, UpdateExpression: "SET reactions = :r",
    ExpressionAttributeValues: { ":r": { thumbsUp: 2 } }, ReturnConsumedCapacity: "INDEXES",
  }));
  assert.equal(reacted.ConsumedCapacity.VectorIndexes, undefined);
});

test("batch posts and transactional deletes keep the index in step", async () => {
  const posts = [["random", 3, "r03", "dan", "Rollout of the release is blocked by a crash"],
    ["random", 4, "r04", "eve", "espresso break?"]];
  await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: posts.map(([room, minute, id, sender, text]) =>
    ({ PutRequest: { Item: { room, sk: sortKey(minute, id), sender, text, embedding: embed(text) } } })) } }));
  for (const [room, minute, id, sender, text] of posts)
    stored.set(`${room}|${sortKey(minute, id)}`, { room, sk: sortKey(minute, id), sender, text, embedding: embed(text) });
  assertMatches(await search("release crash", "random"), expected("release crash", "random", 3));
  const gone = { room: "random", sk: sortKey(3, "r03") };
  await doc.send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: TABLE, Key: gone } }] }));
  stored.delete(`random|${gone.sk}`);
  await doc.send(new DeleteCommand({ TableName: TABLE, Key: { room: "general", sk: sortKey(2, "m02") } }));
  stored.delete(`general|${sortKey(2, "m02")}`);
  assertMatches(await search("release crash", "random"), expected("release crash", "random", 3));
  assertMatches(await search("why did the release tests fail?", "general"), expected("why did the release tests fail?", "general", 3));
});

test("a room's search needs the room: DynamoDB's error through the SDK", async () => {
  await assert.rejects(
    doc.send(new SearchVectorsCommand({ TableName: TABLE, IndexName: INDEX, SearchVector: embed("release"), TopK: 3 })),
    (e) => e.name === "ValidationException" &&
      e.message === "SearchConditionExpression must be provided when SearchSchema has a HASH key");
});
