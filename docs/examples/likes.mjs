// SPDX-License-Identifier: MIT
//
// likes.mjs - seed 001: likes and their notifications across five tables,
// with the article's transactions through @aws-sdk/client-dynamodb. Creates
// the five tables (replacing those a previous run left), then: likes from
// 30 users in parallel, a refused double-like, an unlike, the unread
// notifications through the LSIs, and mark-as-read with a TTL'd read record.
//
//   node docs/examples/likes.mjs [--endpoint http://localhost:8000]

import { check, clientConfig, freshTable, loadSdk, parseArgs, run } from "./common.mjs";

const FAVORITE = "comments-favorite";
const COUNT = "comments-favorite-count";
const UNREAD = "notification-fav-to-my-comment-unread";
const UNREAD_COUNT = "notification-fav-to-my-comment-unread-count";
const READ = "notification-fav-to-my-comment-read";
const S = (v) => ({ S: v });
const N = (v) => ({ N: String(v) });

run(async () => {
  const args = parseArgs();
  const sdk = await loadSdk("@aws-sdk/client-dynamodb");
  const client = new sdk.DynamoDBClient(clientConfig(args));
  const send = (Command, input) => client.send(new Command(input));

  const table = (TableName, keys, lsi) =>
    freshTable(sdk, client, {
      TableName,
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [...keys, ...(lsi ? [lsi.range] : [])].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
      KeySchema: keys.map(([AttributeName], i) => ({ AttributeName, KeyType: i === 0 ? "HASH" : "RANGE" })),
      ...(lsi && {
        LocalSecondaryIndexes: [
          {
            IndexName: lsi.name,
            KeySchema: [
              { AttributeName: keys[0][0], KeyType: "HASH" },
              { AttributeName: lsi.range[0], KeyType: "RANGE" },
            ],
            Projection: { ProjectionType: "ALL" },
          },
        ],
      }),
    });
  await table(FAVORITE, [["commentId", "S"], ["userId", "S"]]);
  await table(COUNT, [["commentId", "S"]]);
  await table(UNREAD, [["userId", "S"], ["commentId", "S"]], { name: "numFavorite-index", range: ["numFavorite", "N"] });
  await table(UNREAD_COUNT, [["userId", "S"], ["commentId", "S"]], { name: "count-index", range: ["count", "N"] });
  await table(READ, [["userId", "S"], ["readAt", "S"]]);
  await send(sdk.UpdateTimeToLiveCommand, { TableName: READ, TimeToLiveSpecification: { AttributeName: "ttl", Enabled: true } });

  // Posting a comment creates its counter and its empty unread notification.
  const author = "author-1";
  for (const commentId of ["comment-1", "comment-2"]) {
    await send(sdk.PutItemCommand, { TableName: COUNT, Item: { commentId: S(commentId), count: N(0) } });
    await send(sdk.PutItemCommand, {
      TableName: UNREAD,
      Item: { userId: S(author), commentId: S(commentId), lastupdate: S(new Date().toISOString()), numFavorite: N(0), favUserIds: { L: [] } },
    });
    await send(sdk.PutItemCommand, { TableName: UNREAD_COUNT, Item: { userId: S(author), commentId: S(commentId), count: N(0) } });
  }

  // A like: one transaction over four tables.
  const like = (userId, commentId) =>
    send(sdk.TransactWriteItemsCommand, {
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
            ExpressionAttributeValues: { ":2": { L: [S(userId)] }, ":0": S(new Date().toISOString()), ":1": N(1) },
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
    });
  // Transactions on the same items at the same moment may be refused with
  // the reason TransactionConflict: retry those.
  const likeWithRetry = async (userId, commentId) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await like(userId, commentId);
      } catch (err) {
        const conflict = err.CancellationReasons?.some((r) => r.Code === "TransactionConflict");
        if (!conflict || attempt === 20) throw err;
        await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
      }
    }
  };

  await Promise.all(Array.from({ length: 30 }, (_, i) => likeWithRetry(`user-${i}`, "comment-1")));
  await likeWithRetry("user-7", "comment-2");
  const count = async (commentId) =>
    Number((await send(sdk.GetItemCommand, { TableName: COUNT, Key: { commentId: S(commentId) }, ConsistentRead: true })).Item.count.N);
  console.log(`30 users liked comment-1 at once: count ${await count("comment-1")}`);
  check((await count("comment-1")) === 30, "30 likes");

  try {
    await like("user-7", "comment-1");
    check(false, "a double like must be refused");
  } catch (err) {
    console.log(`user-7 likes comment-1 again: ${err.name} [${err.CancellationReasons.map((r) => r.Code).join(", ")}]`);
  }

  // An unlike: Delete + decrement in one transaction.
  await send(sdk.TransactWriteItemsCommand, {
    TransactItems: [
      {
        Delete: {
          Key: { commentId: S("comment-1"), userId: S("user-7") },
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
          Key: { commentId: S("comment-1") },
          TableName: COUNT,
          UpdateExpression: "SET #0 = #0 - :0\n",
        },
      },
    ],
  });
  console.log(`user-7 unliked comment-1: count ${await count("comment-1")}`);
  check((await count("comment-1")) === 29, "29 likes");

  // Unread notifications (numFavorite >= 1 on the LSI) and the unread total (the count LSI, summed).
  const unread = await send(sdk.QueryCommand, {
    TableName: UNREAD,
    IndexName: "numFavorite-index",
    KeyConditionExpression: "userId = :u AND numFavorite >= :one",
    ExpressionAttributeValues: { ":u": S(author), ":one": N(1) },
  });
  for (const n of unread.Items) {
    const fans = n.favUserIds.L.map((v) => v.S);
    const names = fans.length <= 2 ? fans.join(" and ") : `${fans[0]} and ${fans.length - 1} others`;
    console.log(`unread: ${n.commentId.S} liked by ${names}`);
  }
  const counts = await send(sdk.QueryCommand, {
    TableName: UNREAD_COUNT,
    IndexName: "count-index",
    KeyConditionExpression: "userId = :u AND #c >= :one",
    ExpressionAttributeNames: { "#c": "count" },
    ExpressionAttributeValues: { ":u": S(author), ":one": N(1) },
  });
  const total = counts.Items.reduce((sum, i) => sum + Number(i.count.N), 0);
  console.log(`unread total for ${author}: ${total}`);
  check(total === 31, "31 unread likes");

  // Mark comment-1 read: reset the unread record, zero its count, put a read record expiring in 7 days.
  const before = (await send(sdk.GetItemCommand, { TableName: UNREAD, Key: { userId: S(author), commentId: S("comment-1") } })).Item;
  const readAt = new Date().toISOString();
  const ttl = Math.floor(Date.now() / 1000) + 7 * 86400;
  await send(sdk.TransactWriteItemsCommand, {
    TransactItems: [
      {
        Update: {
          Key: { userId: S(author), commentId: S("comment-1") },
          TableName: UNREAD,
          UpdateExpression: "SET #0 = :0, #1 = :1, #2 = :2",
          ExpressionAttributeNames: { "#0": "lastupdate", "#1": "numFavorite", "#2": "favUserIds" },
          ExpressionAttributeValues: { ":0": S(readAt), ":1": N(0), ":2": { L: [] } },
        },
      },
      {
        Update: {
          Key: { userId: S(author), commentId: S("comment-1") },
          TableName: UNREAD_COUNT,
          UpdateExpression: "SET #0 = :0",
          ExpressionAttributeNames: { "#0": "count" },
          ExpressionAttributeValues: { ":0": N(0) },
        },
      },
      {
        Put: {
          TableName: READ,
          Item: {
            userId: S(author),
            readAt: S(readAt),
            commentId: S("comment-1"),
            favUserIds: before.favUserIds,
            ttl: N(ttl),
          },
          ConditionExpression: "attribute_not_exists(readAt)",
        },
      },
    ],
  });
  const after = await send(sdk.QueryCommand, {
    TableName: UNREAD,
    IndexName: "numFavorite-index",
    KeyConditionExpression: "userId = :u AND numFavorite >= :one",
    ExpressionAttributeValues: { ":u": S(author), ":one": N(1) },
  });
  const left = after.Items.map((n) => n.commentId.S).join(", ");
  console.log(`marked comment-1 read: unread now ${left}; read record expires ${new Date(ttl * 1000).toISOString()}`);
  check(after.Count === 1, "one unread notification left");
  client.destroy();
});
