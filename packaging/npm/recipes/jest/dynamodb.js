const { DynamoDBClient } = require("@aws-sdk/client-dynamodb");
const { forkForWorker } = require("ddbemu");

// Each test file forks the seed into its worker's own access key (from
// JEST_WORKER_ID: ddbemu1, ddbemu2, ...): it starts from the seed and sees
// only its own writes, whatever the files in other workers do.
const db = {};
beforeAll(async () => {
  db.fork = await forkForWorker("seed"); // the endpoint: DDBEMU_ENDPOINT
  db.client = new DynamoDBClient(db.fork.clientConfig);
});
afterAll(() => db.client?.destroy());

module.exports = db;
