import { test, expect } from "../support/fixtures";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bin, startServer } from "../support/binary";
import { hydrated } from "../support/ui";

test("the binary copied alone into an empty directory serves the full app", async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), "agora-alone-"));
  const copy = join(dir, "agora-hai");
  copyFileSync(bin, copy);
  // No --data-dir: the default, ./data, must appear next to the copy.
  const server = await startServer(["--auth", "dev"], { binary: copy, cwd: dir, dataDir: null });
  try {
    const wasm = page.waitForResponse((r) => r.url().endsWith(".wasm") && r.ok());
    const css = page.waitForResponse((r) => r.url().endsWith(".css") && r.ok());
    await page.goto(`${server.url}/`);
    expect((await wasm).headers()["content-type"]).toBe("application/wasm");
    expect((await css).headers()["content-type"]).toContain("text/css");
    // The Brotli .br that make build embeds (scripts/precompress.mjs), sent once compressed:
    // Chromium accepts br.
    expect((await wasm).headers()["content-encoding"]).toBe("br");
    expect((await css).headers()["content-encoding"]).toBe("br");
    expect((await wasm).headers()["etag"]).toMatch(/-br"$/);
    await hydrated(page);
    // Tailwind applied: the send button has its emerald background, not the browser default.
    await page.getByLabel("Bericht").fill("test");
    const background = await page.getByRole("button", { name: "Verstuur" }).evaluate((b) => getComputedStyle(b).backgroundColor);
    expect(background).not.toBe("rgba(0, 0, 0, 0)");
    expect(background).not.toBe("rgb(239, 239, 239)");
    // The data directory was created next to the binary, nothing else was needed.
    expect(readdirSync(dir).sort()).toEqual(["agora-hai", "data"]);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
