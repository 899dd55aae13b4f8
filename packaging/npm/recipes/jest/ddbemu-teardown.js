module.exports = async () => {
  await globalThis.ddbemu.stop();
};
