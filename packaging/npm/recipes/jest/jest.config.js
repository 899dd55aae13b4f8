// One ddbemu for the whole Jest run: started before the workers, stopped after.
module.exports = {
  globalSetup: "./ddbemu-setup.js",
  globalTeardown: "./ddbemu-teardown.js",
};
