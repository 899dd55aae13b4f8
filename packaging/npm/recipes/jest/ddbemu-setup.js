const { CreateTableCommand, DynamoDBClient, PutItemCommand } = require("@aws-sdk/client-dynamodb");
const { saveSnapshot, start } = require("ddbemu");

module.exports = async () => {
  globalThis.ddbemu = await start(); // a free port; globalTeardown reads this
  process.env.DDBEMU_ENDPOINT = globalThis.ddbemu.endpoint; // the workers inherit it

  // The seed, once for the run: the tables every test file starts from.
  const seed = new DynamoDBClient({
    endpoint: globalThis.ddbemu.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "seed", secretAccessKey: "x" },
  });
  await seed.send(
    new CreateTableCommand({
      TableName: "Orders",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
      BillingMode: "PAY_PER_REQUEST",
    }),
  );
  for (let i = 0; i < 10; i++) {
    await seed.send(new PutItemCommand({ TableName: "Orders", Item: { pk: { S: `seed#${i}` } } }));
  }
  seed.destroy();
  await saveSnapshot("seed", { accessKeyId: "seed" }); // endpoint: DDBEMU_ENDPOINT
};
