// SPDX-License-Identifier: MIT
//
// chat-search.mjs - seed 005: semantic search over chat messages. Messages
// live in one table keyed by room (PK `room`, SK `sk` = MSG#<time>#<id>); a
// vector index `ByMeaning` over each message's `embedding` is partitioned by
// room (SearchSchema HASH `room`), filters by `sender` (INLINE_FILTER) and
// projects the message text. Creates the table ChatMessages (replacing one a
// previous run left), posts messages, and runs each access pattern with the
// document client.
//
// The embeddings come from a toy model (one dimension per topic, counted from
// keywords) so the example needs no model and its results are exact; a real
// application stores the vectors of an embedding model the same way.
//
//   node docs/examples/chat-search.mjs [--endpoint http://localhost:8000]

import { check, clientConfig, freshTable, loadSdk, parseArgs, run } from "./common.mjs";

const TABLE_NAME = "ChatMessages";
const INDEX_NAME = "ByMeaning";

// The toy embedding model: eight topics, each a few keywords.
const TOPICS = [
  ["deploy", "release", "ship", "rollback", "rollout"],
  ["bug", "error", "crash", "broke", "broken", "fix", "fail", "failed"],
  ["lunch", "food", "pizza", "dinner"],
  ["meeting", "call", "standup", "agenda"],
  ["tea", "coffee", "espresso"],
  ["weekend", "holiday", "vacation"],
  ["database", "dynamodb", "table", "index"],
  ["test", "tests", "ci", "pipeline"],
];

/** The message's vector (one count per topic), or undefined when it has no topic. */
export function embed(text) {
  const words = text.toLowerCase().split(/[^a-z]+/);
  const v = TOPICS.map((keys) => words.filter((w) => keys.includes(w)).length);
  return v.some((x) => x > 0) ? v : undefined;
}

/** What the example posts: [room, minute, id, sender, text]. */
export const MESSAGES = [
  ["general", 1, "m01", "ana", "Good morning! Coffee first, then the standup call"],
  ["general", 2, "m02", "ben", "The release pipeline broke: tests crash on the database step"],
  ["general", 3, "m03", "ana", "I can fix the broken test after lunch"],
  ["general", 4, "m04", "chen", "Pizza for lunch today?"],
  ["general", 5, "m05", "ben", "Rollback of the release is done, deploy again tomorrow"],
  ["general", 6, "m06", "chen", "New index on the orders table is live in dynamodb"],
  ["general", 7, "m07", "ana", "ok"],
  ["general", 8, "m08", "chen", "Who is on holiday next weekend?"],
  ["random", 1, "r01", "dan", "The deploy broke my espresso machine"],
  ["random", 2, "r02", "eve", "Weekend plans: tea and a long walk"],
];

export const sortKey = (minute, id) => `MSG#2026-11-26T09:${String(minute).padStart(2, "0")}:00Z#${id}`;

run(async () => {
  if (process.argv[1] !== new URL(import.meta.url).pathname) return; // imported, not run
  const args = parseArgs();
  const ddb = await loadSdk("@aws-sdk/client-dynamodb");
  const lib = await loadSdk("@aws-sdk/lib-dynamodb");
  const client = new ddb.DynamoDBClient(clientConfig(args));
  const doc = lib.DynamoDBDocumentClient.from(client);

  await freshTable(ddb, client, {
    TableName: TABLE_NAME,
    BillingMode: "PAY_PER_REQUEST", // vector indexes need an on-demand table
    AttributeDefinitions: ["room", "sk", "sender"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
    KeySchema: [
      { AttributeName: "room", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    VectorIndexes: [
      {
        IndexName: INDEX_NAME,
        VectorAttribute: { AttributeName: "embedding" }, // not in AttributeDefinitions
        SearchSchema: [
          { AttributeName: "room", SearchSchemaElementType: "HASH" },
          { AttributeName: "sender", SearchSchemaElementType: "INLINE_FILTER" },
        ],
        Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: ["text"] },
        Dimensions: TOPICS.length,
        DistanceFunction: "COSINE",
      },
    ],
  });

  // 1. Post messages; one without a topic is stored without an embedding,
  // so the index leaves it out.
  for (const [room, minute, id, sender, text] of MESSAGES) {
    const embedding = embed(text);
    await doc.send(new lib.PutCommand({
      TableName: TABLE_NAME,
      Item: { room, sk: sortKey(minute, id), sender, text, ...(embedding && { embedding }) },
    }));
  }
  const { Table } = await client.send(new ddb.DescribeTableCommand({ TableName: TABLE_NAME }));
  const vix = Table.VectorIndexes[0];
  console.log(`1. posted ${MESSAGES.length} messages; ${vix.IndexName} holds ${vix.ItemCount} (${vix.IndexStatus})`);
  check(vix.ItemCount === MESSAGES.length - 1, "the message without a topic is not indexed");

  // 2. The latest messages of a room: an ordinary Query, newest first.
  const latest = await doc.send(new lib.QueryCommand({
    TableName: TABLE_NAME, KeyConditionExpression: "room = :r AND begins_with(sk, :m)",
    ExpressionAttributeValues: { ":r": "general", ":m": "MSG#" }, ScanIndexForward: false, Limit: 3,
  }));
  console.log(`2. latest in general: ${latest.Items.map((m) => m.text).join(" | ")}`);

  // 3. Semantic search in one room: the nearest messages by meaning.
  const search = (question, room, extra = {}) => doc.send(new lib.SearchVectorsCommand({
    TableName: TABLE_NAME, IndexName: INDEX_NAME, SearchVector: embed(question), TopK: 3,
    SearchConditionExpression: "#room = :room" + (extra.sender ? " AND sender = :sender" : ""),
    ExpressionAttributeNames: { "#room": "room" },
    ExpressionAttributeValues: { ":room": room, ...(extra.sender && { ":sender": extra.sender }) },
    ReturnConsumedCapacity: "TOTAL",
  }));
  const question = "why did the release tests fail?";
  const found = await search(question, "general");
  console.log(`3. "${question}" in general (${found.ConsumedCapacity.VectorSearchRequestBytes} bytes searched):`);
  for (const r of found.SearchResults) console.log(`   ${r.Score.toFixed(4)}  ${r.Item.sender}: ${r.Item.text}`);
  check(found.SearchResults[0].Item.sk === sortKey(2, "m02"), "the pipeline message comes first");
  check(found.SearchResults.every((r) => r.Item.room === "general" && r.Item.embedding === undefined),
    "results stay in the room and leave the vector out");

  // 4. The same question, only what ben wrote (the sender inline filter).
  const byBen = await search(question, "general", { sender: "ben" });
  console.log(`4. only ben: ${byBen.SearchResults.map((r) => r.Item.text).join(" | ")}`);
  check(byBen.SearchResults.every((r) => r.Item.sender === "ben"), "only ben's messages");

  // 5. Edit a message: the index follows, and the write reports its vector bytes.
  const edited = await doc.send(new lib.UpdateCommand({
    TableName: TABLE_NAME, Key: { room: "general", sk: sortKey(4, "m04") },
    UpdateExpression: "SET #t = :t, embedding = :e",
    ExpressionAttributeNames: { "#t": "text" },
    ExpressionAttributeValues: { ":t": "Lunch moved: the database migration call is at noon", ":e": embed("lunch database call") },
    ReturnConsumedCapacity: "INDEXES",
  }));
  const bytes = edited.ConsumedCapacity.VectorIndexes[INDEX_NAME].VectorWriteRequestBytes;
  const dbTalk = await search("dynamodb table design", "general");
  console.log(`5. edited m04 (${bytes} vector write bytes); "dynamodb table design": ${dbTalk.SearchResults.map((r) => r.Item.sk.slice(-3)).join(", ")}`);
  check(dbTalk.SearchResults.slice(0, 2).map((r) => r.Item.sk.slice(-3)).sort().join() === "m04,m06", "the edited message is found by its new meaning");

  // 6. Delete a message: it leaves the index with the table.
  await doc.send(new lib.DeleteCommand({ TableName: TABLE_NAME, Key: { room: "general", sk: sortKey(2, "m02") } }));
  const after = await search(question, "general");
  console.log(`6. deleted m02; "${question}" now: ${after.SearchResults.map((r) => r.Item.sk.slice(-3)).join(", ")}`);
  check(after.SearchResults.every((r) => !r.Item.sk.endsWith("m02")), "the deleted message is gone");
});
