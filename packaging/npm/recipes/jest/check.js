// What the recipe's two test files check with (not part of the recipe).
const { readdirSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { ScanCommand } = require("@aws-sdk/client-dynamodb");

const seeds = Array.from({ length: 10 }, (_, i) => `seed#${i}`).sort();

async function keys(client) {
  const page = await client.send(new ScanCommand({ TableName: "Orders", ConsistentRead: true }));
  return page.Items.map((item) => item.pk.S).sort();
}

// With DDB_RECIPE_MEETING (packaging/npm/verify sets it to an empty
// directory), waits until both test files are running, so that the test
// shows two workers apart at the same time, not one after the other.
async function meetTheOtherFile(name) {
  const dir = process.env.DDB_RECIPE_MEETING;
  if (!dir) return;
  writeFileSync(join(dir, name), "");
  for (let i = 0; readdirSync(dir).length < 2; i++) {
    if (i > 600) throw new Error("the other test file did not start within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

module.exports = { keys, meetTheOtherFile, seeds };
