import { defineConfig } from "@playwright/test";

// The Makefile picks a free port and the server binary (`make test`: the test build's); both can be
// overridden by hand. Without AGORA_BIN: the release binary `make build` makes.
const port = Number(process.env.E2E_PORT ?? 8123);
const bin = process.env.AGORA_BIN ?? `${process.env.HOME}/.cache/agora-hai/target/release/agora-hai`;
const dataDir = process.env.E2E_DATA_DIR ?? `/tmp/agora-hai-e2e-${port}`;

export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export default defineConfig({
  testDir: "./tests",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath: "/usr/bin/chromium", args: chromiumArgs },
    trace: "retain-on-failure",
  },
  webServer: {
    command: `rm -rf ${dataDir} && ${bin} --auth dev --runs-per-minute 1000 --addr 127.0.0.1:${port} --data-dir ${dataDir}`,
    url: `http://127.0.0.1:${port}/health`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
    stdout: "pipe",
    stderr: "pipe",
  },
});
