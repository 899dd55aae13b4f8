import { CreateTableCommand, DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { saveSnapshot, start } from "ddbemu";

export default async function setup({ provide }) {
  const server = await start(); // a free port
  provide("ddbemuEndpoint", server.endpoint); // tests read it with inject()

  // The seed, once for the run: the tables every test file starts from.
  const seed = new DynamoDBClient({
    endpoint: server.endpoint,
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
  await saveSnapshot("seed", { endpoint: server.endpoint, accessKeyId: "seed" });
  return () => server.stop();
}
