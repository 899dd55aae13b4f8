import { defineConfig } from "vitest/config";

// One ddbemu for the whole Vitest run: started before the workers, stopped after.
export default defineConfig({
  test: { globalSetup: ["./ddbemu-setup.js"] },
});
