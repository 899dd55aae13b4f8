// SPDX-License-Identifier: MIT
//
// sessions.mjs - seed 002: a session store with an overloaded GSI whose keys
// are the table's inverted (GSI hash = SK, GSI range = PK), through the
// document client. Table session_store and index GSI1_inverse as NoSQL
// Workbench's model names them, with its sample data; runs all eight access
// patterns.
//
//   node docs/examples/sessions.mjs [--endpoint http://localhost:8000]

import { check, clientConfig, freshTable, loadSdk, parseArgs, run } from "./common.mjs";

const TABLE_NAME = "session_store";
const GSI = "GSI1_inverse";

run(async () => {
  const args = parseArgs();
  const sdk = await loadSdk("@aws-sdk/client-dynamodb");
  const { DynamoDBDocumentClient, PutCommand, GetCommand, DeleteCommand, QueryCommand } = await loadSdk("@aws-sdk/lib-dynamodb");
  const client = new sdk.DynamoDBClient(clientConfig(args));
  const doc = DynamoDBDocumentClient.from(client);

  await freshTable(sdk, client, {
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
  });

  // 1. createSession (PutItem): the model's sample data.
  const sessions = [
    { PK: "suuid#c342etj3", SK: "child#suuid#ert54fbgn", access_token: "lko98uib", session_state: "active" },
    { PK: "suuid#c342etj3", SK: "child#suuid#kljhfytf23", access_token: "acg45jhi", session_state: "closing" },
    { PK: "suuid#c342etj3", SK: "c#ABC", last_login_time: "2023-05-12T11:30:00", access_token: "d234ltj2", session_state: "active" },
    { PK: "suuid#d0004tj2", SK: "c#ABC", last_login_time: "2023-05-12T11:30:00", access_token: "q010ltj2", session_state: "closing" },
    { PK: "suuid#l221et00", SK: "c#XYZ", last_login_time: "2023-04-30T15:22:09", access_token: "q213law5", session_state: "active" },
    { PK: "suuid#l221et00", SK: "child#suuid#ljy22tf0", access_token: "j143lawy", session_state: "active" },
  ];
  for (const Item of sessions) await doc.send(new PutCommand({ TableName: TABLE_NAME, Item }));
  console.log(`1. createSession: ${sessions.length} items`);

  // 2. getSessionBySessionId (GetItem on PK + SK)
  const s = await doc.send(new GetCommand({ TableName: TABLE_NAME, Key: { PK: "suuid#c342etj3", SK: "c#ABC" } }));
  console.log(`2. getSessionBySessionId suuid#c342etj3: ${s.Item.session_state}, token ${s.Item.access_token}`);

  // 4. getChildSessionsBySessionId (Query PK = :s AND begins_with(SK, "child#"))
  const children = await doc.send(
    new QueryCommand({
      TableName: TABLE_NAME,
      KeyConditionExpression: "PK = :s AND begins_with(SK, :c)",
      ExpressionAttributeValues: { ":s": "suuid#c342etj3", ":c": "child#" },
    }),
  );
  console.log(`4. getChildSessionsBySessionId suuid#c342etj3: ${children.Items.map((i) => i.SK).join(", ")}`);
  check(children.Count === 2, "two children");

  const gsi = (KeyConditionExpression, ExpressionAttributeValues, extra = {}) =>
    doc.send(new QueryCommand({ TableName: TABLE_NAME, IndexName: GSI, KeyConditionExpression, ExpressionAttributeValues, ...extra }));

  // 5. getSessionByChildSessionId (GSI: SK = child id)
  const parent = await gsi("SK = :c", { ":c": "child#suuid#kljhfytf23" });
  console.log(`5. getSessionByChildSessionId child#suuid#kljhfytf23: parent ${parent.Items[0].PK}`);
  check(parent.Items[0].PK === "suuid#c342etj3", "parent");

  // 6. getLastLoginTimeByCustomerId (GSI: SK = customer, Limit 1: GSI keys are not unique)
  const last = await gsi("SK = :c", { ":c": "c#ABC" }, { Limit: 1 });
  console.log(`6. getLastLoginTimeByCustomerId c#ABC: ${last.Items[0].last_login_time} (more: ${last.LastEvaluatedKey !== undefined})`);

  // 7. getSessionIdByCustomerId (GSI: SK = customer AND PK = session)
  const one = await gsi("SK = :c AND PK = :s", { ":c": "c#ABC", ":s": "suuid#d0004tj2" });
  console.log(`7. getSessionIdByCustomerId c#ABC, suuid#d0004tj2: ${one.Items.map((i) => i.session_state).join(", ")}`);

  // 8. getSessionsByCustomerId (GSI: SK = customer): every item sharing the GSI key
  const all = await gsi("SK = :c", { ":c": "c#ABC" });
  console.log(`8. getSessionsByCustomerId c#ABC: ${all.Items.map((i) => i.PK).join(", ")}`);
  check(all.Count === 2, "two sessions");

  // 3. expireSession (DeleteItem): gone from the table and the GSI
  await doc.send(new DeleteCommand({ TableName: TABLE_NAME, Key: { PK: "suuid#d0004tj2", SK: "c#ABC" } }));
  const left = await gsi("SK = :c", { ":c": "c#ABC" });
  console.log(`3. expireSession suuid#d0004tj2; c#ABC now has ${left.Items.map((i) => i.PK).join(", ")}`);
  check(left.Count === 1, "one session left");
  client.destroy();
});
