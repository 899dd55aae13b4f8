// SPDX-License-Identifier: MIT
//
// Vector search through the pinned AWS SDK for JavaScript v3: semantic search
// over an agent's memory. A table of memories (one partition per agent) with a
// COSINE vector index partitioned by agent, created with CreateTableCommand's
// VectorIndexes and searched with SearchVectorsCommand. On AWS the SDK sends
// SearchVectors to the dedicated search-dynamodb endpoint unless an endpoint is
// configured; with `endpoint` set it must reach the configured server - the
// first test checks where the request went (spec-24 3.7). Every assertion
// holds on DynamoDB except the order of equal scores, which no test relies on.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  SearchVectorsCommand,
} from "@aws-sdk/client-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TABLE = "AgentMemory";
let emu, client;
const sentTo = [];

const n = (x) => ({ N: String(x) });
const memory = (agent, id, text, embedding) => ({
  agent: { S: agent },
  id: { S: id },
  text: { S: text },
  embedding: { L: embedding.map(n) },
});

before(async () => {
  emu = await startDdbemu();
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  // Records the host every request is sent to (after endpoint resolution).
  client.middlewareStack.add(
    (next) => async (args) => {
      sentTo.push(`${args.request.protocol}//${args.request.hostname}:${args.request.port}`);
      return next(args);
    },
    { step: "finalizeRequest", name: "recordHost" },
  );
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: "agent", AttributeType: "S" },
        { AttributeName: "id", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "agent", KeyType: "HASH" },
        { AttributeName: "id", KeyType: "RANGE" },
      ],
      VectorIndexes: [
        {
          IndexName: "memory-vectors",
          VectorAttribute: { AttributeName: "embedding" },
          SearchSchema: [{ AttributeName: "agent", SearchSchemaElementType: "HASH" }],
          Projection: { ProjectionType: "ALL" },
          Dimensions: 4,
          DistanceFunction: "COSINE",
        },
      ],
    }),
  );
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (Table.TableStatus === "ACTIVE" && Table.VectorIndexes.every((v) => v.IndexStatus === "ACTIVE"))
      break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const items = [
    memory("a1", "m1", "likes green tea", [1, 0, 0, 0]),
    memory("a1", "m2", "prefers tea in the morning", [0.9, 0.1, 0, 0]),
    memory("a1", "m3", "deploys on fridays", [0, 0, 1, 0]),
    memory("a1", "m4", "hates coffee", [-1, 0, 0, 0]),
    memory("a2", "m1", "likes green tea too", [1, 0, 0, 0]),
  ];
  for (const Item of items) await client.send(new PutItemCommand({ TableName: TABLE, Item }));
});

after(async () => {
  await emu?.stop();
});

const searchAgent = (agent, vector, TopK, extra = {}) =>
  new SearchVectorsCommand({
    TableName: TABLE,
    IndexName: "memory-vectors",
    SearchVector: vector.map(n),
    TopK,
    // AGENT is one of DynamoDB's reserved words: the name goes through #agent.
    SearchConditionExpression: "#agent = :a",
    ExpressionAttributeNames: { "#agent": "agent" },
    ExpressionAttributeValues: { ":a": { S: agent } },
    ...extra,
  });

test("SearchVectorsCommand reaches the configured endpoint", async () => {
  sentTo.length = 0;
  const out = await client.send(searchAgent("a1", [1, 0, 0, 0], 1));
  assert.deepEqual(sentTo, [emu.endpoint]);
  assert.equal(out.SearchResults.length, 1);
});

test("the nearest memories of one agent, nearest first, without the vector", async () => {
  const out = await client.send(searchAgent("a1", [1, 0.05, 0, 0], 3));
  assert.deepEqual(
    out.SearchResults.map((r) => r.Item.id.S),
    ["m1", "m2", "m3"],
  );
  // COSINE: 0 identical .. 2 opposite, smaller first.
  const scores = out.SearchResults.map((r) => r.Score);
  assert.ok(scores[0] < scores[1] && scores[1] < scores[2], scores.join());
  assert.ok(Math.abs(scores[2] - 1) < 1e-3);
  assert.equal(out.SearchResults[0].Item.embedding, undefined);
  assert.equal(out.SearchResults[0].Item.text.S, "likes green tea");
  assert.ok(out.SearchResults.every((r) => r.Item.agent.S === "a1"));
});

test("the opposite memory scores 2 and the vector comes when projected", async () => {
  const out = await client.send(
    searchAgent("a1", [1, 0, 0, 0], 4, {
      ProjectionExpression: "id, embedding",
      ReturnConsumedCapacity: "TOTAL",
    }),
  );
  const last = out.SearchResults.at(-1);
  assert.equal(last.Item.id.S, "m4");
  assert.equal(last.Score, 2);
  assert.deepEqual(Object.keys(last.Item).sort(), ["embedding", "id"]);
  assert.ok(out.ConsumedCapacity.VectorSearchRequestBytes >= 1024);
});

test("errors come back as the SDK's exceptions", async () => {
  await assert.rejects(client.send(searchAgent("a1", [1, 0, 0], 2)), (e) => {
    assert.equal(e.name, "ValidationException");
    assert.equal(e.message, "Input search vector dimension 3 does not match vector index dimension 4");
    return true;
  });
  await assert.rejects(
    client.send(
      new SearchVectorsCommand({
        TableName: TABLE,
        IndexName: "memory-vectors",
        SearchVector: [1, 0, 0, 0].map(n),
        TopK: 2,
      }),
    ),
    (e) => {
      assert.equal(e.name, "ValidationException");
      assert.equal(e.message, "SearchConditionExpression must be provided when SearchSchema has a HASH key");
      return true;
    },
  );
});
