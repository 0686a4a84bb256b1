// Starts the release binary on its own port and data directory, for tests that need a server
// of their own (another sign-in mode, a restart, a fake model).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const bin = process.env.AGORA_BIN ?? `${process.env.HOME}/.cache/agora-hai/target/release/agora-hai`;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

export async function waitForHealth(url: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

export interface RunningServer {
  url: string;
  /** Null when the binary chose its own. */
  dataDir: string | null;
  /** Stops the process (SIGTERM) and waits for it. */
  stop(): Promise<void>;
  /** Stops it and removes its data directory. */
  dispose(): Promise<void>;
}

/**
 * Starts `bin` with `args` plus `--addr` and `--data-dir`: a fresh directory unless given, none
 * at all (the binary's default, `./data` in `cwd`) when `dataDir` is null.
 */
export async function startServer(
  args: string[],
  options: { dataDir?: string | null; port?: number; binary?: string; cwd?: string } = {},
): Promise<RunningServer> {
  const dataDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), "agora-e2e-")) : options.dataDir;
  const port = options.port ?? (await freePort());
  const dataArgs = dataDir === null ? [] : ["--data-dir", dataDir];
  const child: ChildProcess = spawn(options.binary ?? bin, [...args, "--addr", `127.0.0.1:${port}`, ...dataArgs], {
    cwd: options.cwd,
    stdio: "ignore",
    env: { PATH: "/usr/bin:/bin", RUST_LOG: "warn" },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(`${url}/health`);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return {
    url,
    dataDir,
    stop,
    async dispose() {
      await stop();
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
