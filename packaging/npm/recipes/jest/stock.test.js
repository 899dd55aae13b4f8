// Both test files run at the same time in two workers, write into the same
// table name and delete seed items: their forks keep them apart. Here every
// test starts from the seed: beforeEach forks it into this worker's key again.
const { DeleteItemCommand, PutItemCommand } = require("@aws-sdk/client-dynamodb");
const db = require("./dynamodb.js");
const { keys, meetTheOtherFile, seeds } = require("./check.js");

beforeEach(() => db.fork.restore());

test("stock: the seed, then this worker's writes only", async () => {
  await meetTheOtherFile("stock");
  expect(await keys(db.client)).toEqual(seeds);
  await db.client.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: "stock#1" } } }));
  await db.client.send(
    new DeleteItemCommand({ TableName: "Orders", Key: { pk: { S: "seed#9" } } }),
  );
  await new Promise((resolve) => setTimeout(resolve, 300)); // the other file writes meanwhile
  expect(await keys(db.client)).toEqual([...seeds.slice(0, 9), "stock#1"].sort());
});

test("stock: the next test starts from the seed again", async () => {
  expect(await keys(db.client)).toEqual(seeds);
});
