// First load on a slow phone link (issue 34): Fast 3G as Lighthouse defines it (562.5 ms round
// trip, 1.47 Mbit/s down, 675 kbit/s up) and a 4× slower CPU, through the DevTools protocol;
// five fresh loads, the median printed. Not a test: `npx playwright test -c bench/bench.config.ts
// first-load` after `make build`.
// - first paint: `first-contentful-paint`;
// - typing accepted: the first animation frame in which the message box is in the page and
//   enabled (the server renders it, and what is typed before hydration is kept);
// - hydrated: `data-hydrated` set on <html>;
// - bytes: what came over the wire (`encodedDataLength`), the socket excluded.
import { test } from "@playwright/test";

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

test("first load on Fast 3G with a 4x slower CPU", async ({ browser, baseURL }) => {
  const runs: { paint: number; typing: number; hydrated: number; bytes: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as any;
      const look = () => {
        const box = document.querySelector("textarea");
        if (w.__typing === undefined && box && !(box as HTMLTextAreaElement).disabled) w.__typing = performance.now();
        if (w.__hydrated === undefined && document.documentElement.getAttribute("data-hydrated") === "true") {
          w.__hydrated = performance.now();
        }
        if (w.__hydrated === undefined || w.__typing === undefined) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 562.5,
      downloadThroughput: (1474.56 * 1024) / 8,
      uploadThroughput: (675 * 1024) / 8,
    });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    let bytes = 0;
    cdp.on("Network.loadingFinished", (e: any) => (bytes += e.encodedDataLength));
    await page.goto(baseURL!);
    await page.waitForFunction(() => (window as any).__hydrated !== undefined, null, { timeout: 120_000 });
    const times = await page.evaluate(() => ({
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
      typing: (window as any).__typing,
      hydrated: (window as any).__hydrated,
    }));
    runs.push({ ...times, bytes });
    await context.close();
  }
  const report = {
    firstPaintMs: Math.round(median(runs.map((r) => r.paint))),
    typingAcceptedMs: Math.round(median(runs.map((r) => r.typing))),
    hydratedMs: Math.round(median(runs.map((r) => r.hydrated))),
    bytes: median(runs.map((r) => r.bytes)),
    runs,
  };
  console.log(`first load, median of ${RUNS}: ${JSON.stringify(report)}`);
});
