// Both test files run at the same time in two workers, write into the same
// table name and delete seed items: their forks keep them apart.
const { DeleteItemCommand, PutItemCommand } = require("@aws-sdk/client-dynamodb");
const db = require("./dynamodb.js");
const { keys, meetTheOtherFile, seeds } = require("./check.js");

test("orders: the seed, then this worker's writes only", async () => {
  expect(db.fork.accessKeyId).toBe(`ddbemu${process.env.JEST_WORKER_ID}`);
  await meetTheOtherFile("orders");
  expect(await keys(db.client)).toEqual(seeds);
  await db.client.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: "order#1" } } }));
  await db.client.send(
    new DeleteItemCommand({ TableName: "Orders", Key: { pk: { S: "seed#0" } } }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300)); // the other file writes meanwhile
  expect(await keys(db.client)).toEqual([...seeds.slice(1), "order#1"].sort());
});
