const { start } = require("ddbemu");

module.exports = async () => {
  globalThis.ddbemu = await start(); // a free port; globalTeardown reads this
  process.env.DDBEMU_ENDPOINT = globalThis.ddbemu.endpoint; // the workers inherit it
};
