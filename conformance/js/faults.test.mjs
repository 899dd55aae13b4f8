// SPDX-License-Identifier: MIT
//
// Emulator only: fault injection (/ddbemu/faults) through the AWS SDK for
// JavaScript v3's own retry strategy. Each fault answers as DynamoDB does
// (api/faults/fault_rule.c); what recovers is the SDK: its standard retry
// strategy retries throttling errors, 5xx answers and a reset connection, a
// TransactWriteItems retried with its ClientRequestToken is applied once,
// and a BatchWriteItem loop resending UnprocessedItems writes every item.
// The same cases with boto3 are in conformance/test_emulator_faults.py.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
} from "@aws-sdk/client-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

let emu, client;
const TABLE = "faults";

async function faults(method, body, path = "faults") {
  const resp = await fetch(`${emu.endpoint}/ddbemu/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return resp.json();
}

async function addRule(rule) {
  const answer = await faults("POST", rule);
  assert.ok(answer.ids, JSON.stringify(answer));
  return answer.ids[0];
}

async function fired(id) {
  const { faults: rules } = await faults("GET");
  return rules.find((r) => r.id === id).fired;
}

before(async () => {
  emu = await startDdbemu();
  // The SDK's default: the standard retry strategy, three attempts.
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials, maxAttempts: 4 });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
});

after(async () => {
  client?.destroy();
  await emu?.stop();
});

for (const error of [
  "ThrottlingException",
  "ProvisionedThroughputExceededException",
  "RequestLimitExceeded",
  "InternalServerError",
  "ServiceUnavailable",
  "LimitExceededException",
  "TransactionInProgressException",
]) {
  test(`the SDK's retry strategy gets a PutItem through two ${error}s`, async () => {
    const id = await addRule({
      match: { operation: "PutItem" },
      action: { type: "error", error },
      trigger: { times: 2 },
    });
    const out = await client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: error } } }));
    assert.equal(out.$metadata.attempts, 3);
    assert.equal(await fired(id), 2);
    const got = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: error } } }));
    assert.deepEqual(got.Item, { pk: { S: error } });
  });
}

for (const [error, message] of [
  ["ItemCollectionSizeLimitExceededException", "Collection size exceeded."],
  ["TransactionConflictException", "Transaction is ongoing for the item"],
]) {
  test(`${error}, which the SDK does not retry, surfaces at once with its message`, async () => {
    await addRule({ match: { operation: "PutItem" }, action: { type: "error", error }, trigger: { times: 1 } });
    await assert.rejects(client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: "no" } } })), (e) => {
      assert.equal(e.name, error);
      assert.equal(e.message, message);
      assert.equal(e.$metadata.httpStatusCode, 400);
      assert.equal(e.$metadata.attempts, 1);
      return true;
    });
    const got = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: "no" } } }));
    assert.equal(got.Item, undefined);
  });
}

for (const how of ["500", "reset"]) {
  test(`a TransactWriteItems whose answer is lost (${how}) is retried with its token and applied once`, async () => {
    const key = { pk: { S: `counter-${how}` } };
    const id = await addRule({
      match: { operation: "TransactWriteItems" },
      action: { type: "lose_answer", how },
      trigger: { times: 1 },
    });
    const out = await client.send(
      new TransactWriteItemsCommand({
        // Left out, the SDK fills ClientRequestToken itself (an idempotency token).
        TransactItems: [
          {
            Update: {
              TableName: TABLE,
              Key: key,
              UpdateExpression: "ADD n :one",
              ExpressionAttributeValues: { ":one": { N: "1" } },
            },
          },
        ],
      }),
    );
    assert.equal(out.$metadata.attempts, 2);
    assert.equal(await fired(id), 1);
    const got = await client.send(new GetItemCommand({ TableName: TABLE, Key: key, ConsistentRead: true }));
    assert.deepEqual(got.Item.n, { N: "1" });
  });
}

test("a BatchWriteItem loop resending UnprocessedItems writes every item", async () => {
  await addRule({
    match: { operation: "BatchWriteItem" },
    action: { type: "unprocessed", count: 5 },
    trigger: { times: 2 },
  });
  let pending = {
    [TABLE]: Array.from({ length: 12 }, (_, i) => ({ PutRequest: { Item: { pk: { S: `batch${i}` } } } })),
  };
  const rounds = [];
  while (Object.keys(pending).length) {
    const out = await client.send(new BatchWriteItemCommand({ RequestItems: pending }));
    pending = out.UnprocessedItems ?? {};
    rounds.push(Object.values(pending).reduce((n, list) => n + list.length, 0));
  }
  assert.deepEqual(rounds, [5, 5, 0]);
  const { Items } = await client.send(new ScanCommand({ TableName: TABLE }));
  const written = Items.map((i) => i.pk.S).filter((k) => k.startsWith("batch"));
  assert.equal(written.length, 12);
});

test("a canceled transaction carries the chosen reason at the chosen position", async () => {
  await addRule({
    match: { operation: "TransactWriteItems" },
    action: { type: "cancel", reason: "ConditionalCheckFailed", position: 0 },
    trigger: { times: 1 },
  });
  await assert.rejects(
    client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: TABLE, Item: { pk: { S: "tx1" } } } },
          { Put: { TableName: TABLE, Item: { pk: { S: "tx2" } } } },
        ],
      }),
    ),
    (e) => {
      assert.equal(e.name, "TransactionCanceledException");
      assert.deepEqual(e.CancellationReasons, [
        { Code: "ConditionalCheckFailed", Message: "The conditional request failed" },
        { Code: "None" },
      ]);
      return true;
    },
  );
  const got = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: "tx1" } } }));
  assert.equal(got.Item, undefined);
});

test("latency holds the answer at least that long, and the call still succeeds", async () => {
  await addRule({ match: { operation: "GetItem" }, action: { type: "latency", ms: 300 }, trigger: { times: 1 } });
  const start = performance.now();
  await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: "none" } } }));
  assert.ok(performance.now() - start >= 300);
});
