const { DynamoDBClient } = require("@aws-sdk/client-dynamodb");

// One access key per Jest worker: ddbemu gives each key its own tables, so
// tests in parallel workers never see each other's.
const client = new DynamoDBClient({
  endpoint: process.env.DDBEMU_ENDPOINT,
  region: "us-east-1",
  credentials: { accessKeyId: `worker${process.env.JEST_WORKER_ID}`, secretAccessKey: "x" },
});
afterAll(() => client.destroy());

module.exports = { client };
