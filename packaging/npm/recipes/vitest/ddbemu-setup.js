import { start } from "ddbemu";

export default async function setup({ provide }) {
  const server = await start(); // a free port
  provide("ddbemuEndpoint", server.endpoint); // tests read it with inject()
  return () => server.stop();
}
