import { test, expect } from "@playwright/test";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.env.AGORA_BIN ?? `${process.env.HOME}/.cache/agora-hai/target/release/agora-hai`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

async function waitForHealth(url: string) {
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

test("the binary copied alone into an empty directory serves the full app", async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), "agora-alone-"));
  const copy = join(dir, "agora-hai");
  copyFileSync(bin, copy);
  const port = await freePort();
  let child: ChildProcess | undefined;
  try {
    child = spawn(copy, ["--auth", "dev", "--addr", `127.0.0.1:${port}`], { cwd: dir, stdio: "ignore", env: { PATH: "/usr/bin:/bin" } });
    await waitForHealth(`http://127.0.0.1:${port}/health`);

    const wasm = page.waitForResponse((r) => r.url().endsWith(".wasm") && r.ok());
    const css = page.waitForResponse((r) => r.url().endsWith(".css") && r.ok());
    await page.goto(`http://127.0.0.1:${port}/`);
    expect((await wasm).headers()["content-type"]).toBe("application/wasm");
    expect((await css).headers()["content-type"]).toContain("text/css");
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    // Tailwind applied: the send button has its emerald background, not the browser default.
    await page.getByLabel("Bericht").fill("test");
    const background = await page.getByRole("button", { name: "Verstuur" }).evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(background).not.toBe("rgba(0, 0, 0, 0)");
    expect(background).not.toBe("rgb(239, 239, 239)");
    // The data directory was created next to the binary, nothing else was needed.
    expect(readdirSync(dir).sort()).toEqual(["agora-hai", "data"]);
  } finally {
    child?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});
