import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // End-to-end suites launch real gateways and Chromium: keep the 2-core machine from thrashing.
    maxWorkers: 2,
    minWorkers: 1
  }
})
