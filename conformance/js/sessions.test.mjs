// SPDX-License-Identifier: MIT
//
// Seed 002 (SCHEMAS.md section 3): the session store with an overloaded
// inverted GSI (GSI hash = SK, GSI range = PK), through the v3 document
// client. The names and the sample data are the NoSQL Workbench model's
// (SessionManagementSchema.json: table session_store, index GSI1_inverse).
// All eight access patterns; everything here holds on DynamoDB (reads of
// the GSI are eventually consistent there, so they poll).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CreateTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";

import { credentials, region, startDdbemu } from "./ddbemu.mjs";

const TABLE_NAME = "session_store";
const GSI = "GSI1_inverse";
let emu, client, doc;

before(async () => {
  emu = await startDdbemu();
  client = new DynamoDBClient({ endpoint: emu.endpoint, region, credentials });
  doc = DynamoDBDocumentClient.from(client);
  await client.send(
    new CreateTableCommand({
      TableName: TABLE_NAME,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [
        { AttributeName: "PK", AttributeType: "S" },
        { AttributeName: "SK", AttributeType: "S" },
      ],
      KeySchema: [
        { AttributeName: "PK", KeyType: "HASH" },
        { AttributeName: "SK", KeyType: "RANGE" },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: GSI,
          KeySchema: [
            { AttributeName: "SK", KeyType: "HASH" },
            { AttributeName: "PK", KeyType: "RANGE" },
          ],
          Projection: { ProjectionType: "ALL" },
        },
      ],
    }),
  );
});

after(async () => {
  client?.destroy();
  await emu?.stop();
});

/** GSI reads are eventually consistent on DynamoDB: retry until `ok` holds. */
async function eventually(read, ok) {
  let result;
  for (let i = 0; i < 100; i++) {
    result = await read();
    if (ok(result)) return result;
    await new Promise((r) => setTimeout(r, 100));
  }
  return result;
}

// ---- the eight access patterns ----

const createSession = (item) =>
  doc.send(new PutCommand({ TableName: TABLE_NAME, Item: item, ConditionExpression: "attribute_not_exists(PK)" }));
const getSessionBySessionId = async (sessionId, customerId) =>
  (await doc.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK: sessionId, SK: customerId }, ConsistentRead: true })))
    .Item;
const expireSession = (sessionId, customerId) =>
  doc.send(new DeleteCommand({ TableName: TABLE_NAME, Key: { PK: sessionId, SK: customerId }, ReturnValues: "ALL_OLD" }));
const getChildSessionsBySessionId = (sessionId) =>
  doc.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :s AND begins_with(SK, :child)",
      ExpressionAttributeValues: { ":s": sessionId, ":child": "child#" },
      ConsistentRead: true,
    }),
  );
const queryGsi = (sk, extra = {}) =>
  doc.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      IndexName: GSI,
      KeyConditionExpression: extra.pk ? "SK = :sk AND PK = :pk" : "SK = :sk",
      ExpressionAttributeValues: { ":sk": sk, ...(extra.pk && { ":pk": extra.pk }) },
      ...(extra.Limit && { Limit: extra.Limit }),
    }),
  );
const getSessionByChildSessionId = (childId) => queryGsi(childId);
const getLastLoginTimeByCustomerId = (customerId) => queryGsi(customerId, { Limit: 1 });
const getSessionIdByCustomerId = (customerId, sessionId) => queryGsi(customerId, { pk: sessionId });
const getSessionsByCustomerId = (customerId) => queryGsi(customerId);

// The model's sample data, each item padded to about 1 KB as the article sizes them.
const pad = "x".repeat(900);
const sample = [
  { PK: "suuid#c342etj3", SK: "child#suuid#ert54fbgn", access_token: "lko98uib", session_state: "active" },
  { PK: "suuid#c342etj3", SK: "child#suuid#kljhfytf23", access_token: "acg45jhi", session_state: "closing" },
  { PK: "suuid#c342etj3", SK: "c#ABC", last_login_time: "2023-05-12T11:30:00", access_token: "d234ltj2", session_state: "active" },
  { PK: "suuid#d0004tj2", SK: "c#ABC", last_login_time: "2023-05-12T11:30:00", access_token: "q010ltj2", session_state: "closing" },
  { PK: "suuid#l221et00", SK: "c#XYZ", last_login_time: "2023-04-30T15:22:09", access_token: "q213law5", session_state: "active" },
  { PK: "suuid#l221et00", SK: "child#suuid#ljy22tf0", access_token: "j143lawy", session_state: "active" },
].map((i) => ({ ...i, data: pad }));

test("createSession, getSessionBySessionId; a second create of one session is refused", async () => {
  for (const item of sample) await createSession(item);
  const got = await getSessionBySessionId("suuid#c342etj3", "c#ABC");
  assert.equal(got.access_token, "d234ltj2");
  assert.equal(got.last_login_time, "2023-05-12T11:30:00");
  await assert.rejects(createSession(sample[2]), { name: "ConditionalCheckFailedException" });
});

test("getChildSessionsBySessionId: begins_with(SK, child#) on the table", async () => {
  const children = await getChildSessionsBySessionId("suuid#c342etj3");
  assert.deepEqual(
    children.Items.map((i) => i.SK),
    ["child#suuid#ert54fbgn", "child#suuid#kljhfytf23"],
  );
  assert.equal((await getChildSessionsBySessionId("suuid#d0004tj2")).Count, 0);
});

test("getSessionByChildSessionId: the GSI's hash key is the child id, its range the parent", async () => {
  const parent = await eventually(
    () => getSessionByChildSessionId("child#suuid#kljhfytf23"),
    (r) => r.Count === 1,
  );
  assert.deepEqual(
    parent.Items.map((i) => [i.PK, i.access_token]),
    [["suuid#c342etj3", "acg45jhi"]],
  );
});

test("getSessionsByCustomerId: a GSI key shared by several items returns them all", async () => {
  const sessions = await eventually(
    () => getSessionsByCustomerId("c#ABC"),
    (r) => r.Count === 2,
  );
  assert.deepEqual(
    sessions.Items.map((i) => i.PK),
    ["suuid#c342etj3", "suuid#d0004tj2"],
  );
  assert.equal((await getSessionsByCustomerId("c#XYZ")).Count, 1);
});

test("getLastLoginTimeByCustomerId: Limit 1 returns one of the customer's sessions and a LastEvaluatedKey", async () => {
  const last = await getLastLoginTimeByCustomerId("c#ABC");
  assert.equal(last.Items.length, 1);
  assert.equal(last.Items[0].last_login_time, "2023-05-12T11:30:00");
  // The index's key plus the table's key, to go on from.
  assert.deepEqual(last.LastEvaluatedKey, { SK: "c#ABC", PK: "suuid#c342etj3" });
});

test("getSessionIdByCustomerId: SK = customer AND PK = session on the GSI", async () => {
  const one = await getSessionIdByCustomerId("c#ABC", "suuid#d0004tj2");
  assert.deepEqual(
    one.Items.map((i) => [i.PK, i.session_state]),
    [["suuid#d0004tj2", "closing"]],
  );
});

test("expireSession: DeleteItem takes the session out of the table and the GSI", async () => {
  const old = await expireSession("suuid#d0004tj2", "c#ABC");
  assert.equal(old.Attributes.access_token, "q010ltj2");
  assert.equal(await getSessionBySessionId("suuid#d0004tj2", "c#ABC"), undefined);
  const sessions = await eventually(
    () => getSessionsByCustomerId("c#ABC"),
    (r) => r.Count === 1,
  );
  assert.deepEqual(
    sessions.Items.map((i) => i.PK),
    ["suuid#c342etj3"],
  );
  // Each item is about 1 KB: one write unit per PutItem of one (on demand).
  const put = await doc.send(
    new PutCommand({ TableName: TABLE_NAME, Item: sample[3], ReturnConsumedCapacity: "TOTAL" }),
  );
  assert.equal(put.ConsumedCapacity.CapacityUnits, 2); // the table and the GSI: one WCU each
});
