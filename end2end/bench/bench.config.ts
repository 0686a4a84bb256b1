// The streaming benchmark (not a test): `cd end2end && npx playwright test -c bench/bench.config.ts`
// (after `make build`; AGORA_BIN and E2E_PORT as for `make e2e`). It prints its figures.
import { defineConfig } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 8124);
const bin = process.env.AGORA_BIN ?? `${process.env.HOME}/.cache/agora-hai/target/release/agora-hai`;
const dataDir = `/tmp/agora-hai-bench-${port}`;

export default defineConfig({
  testDir: ".",
  testMatch: "*.bench.ts",
  timeout: 180_000,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: {
    command: `rm -rf ${dataDir} && ${bin} --auth dev --addr 127.0.0.1:${port} --data-dir ${dataDir}`,
    url: `http://127.0.0.1:${port}/health`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
