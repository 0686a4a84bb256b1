// A 20,000-token answer, one token per TEXT_MESSAGE_CONTENT, written to the page's socket as
// fast as Node can: the page must show all of it. Reports the total time from sending the
// question to the rendered Markdown, the longest main-thread task (PerformanceObserver
// `longtask`), and the time in long tasks.
import { test, expect } from "../support/fixtures";
import { longAnswer, storedThread, textRun } from "./fake-agora";
import { startFront } from "./ws-proxy";

const TOKENS = 20_000;

test(`a ${TOKENS}-token answer streamed at full speed renders completely`, async ({ page, baseURL }) => {
  const chunks = longAnswer(TOKENS);
  const expected = chunks.join("");
  const front = await startFront(baseURL!, (text, send) => {
    const frame = JSON.parse(text);
    const stored = storedThread(frame);
    if (stored) {
      send(stored.map((e) => JSON.stringify(e)));
    } else if (!frame.type) {
      send(textRun(frame.threadId, chunks, "regulation-agent").map((e) => JSON.stringify(e)));
    }
  });
  try {
    await page.goto(front.url);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await expect(page.getByRole("status", { name: "Verbindingsstatus" })).toHaveText("verbonden");
    await page.evaluate(() => {
      const w = window as any;
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__long.push(entry.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await page.getByLabel("Bericht").fill("Geef het hele overzicht");
    const start = await page.evaluate(() => {
      (document.querySelector("main form button[type=submit]") as HTMLButtonElement).click();
      return performance.now();
    });
    // Done: the answer is no longer streaming and its last heading is there.
    const lastHeading = `Deel ${Math.ceil(TOKENS / 400)}`;
    const end = await page.waitForFunction(
      (heading) => {
        const article = [...document.querySelectorAll("[role=log] article")].pop();
        if (!article || article.getAttribute("aria-busy")) return false;
        const headings = article.querySelectorAll("h4");
        return headings.length && headings[headings.length - 1].textContent === heading ? performance.now() : false;
      },
      lastHeading,
      { polling: "raf", timeout: 170_000 },
    );
    const total = (await end.jsonValue()) as number - start;
    // Everything arrived: all parts, and the text without markup has every word.
    const article = page.getByRole("log").locator("article").last();
    await expect(article.locator("h4")).toHaveCount(Math.ceil(TOKENS / 400));
    const shown = await article.innerText();
    const words = expected.replace(/[#*`\-\n]/g, " ").split(/\s+/).filter(Boolean).length;
    const shownWords = shown.split(/\s+/).filter(Boolean).length;
    expect(shownWords).toBeGreaterThanOrEqual(words);
    // The view followed the answer to its end.
    await expect
      .poll(() => page.evaluate(() => {
        // The conversation's scrolling region: the element the log sits in.
        const el = document.querySelector("[role=log]")!.parentElement!;
        return el.scrollHeight - el.scrollTop - el.clientHeight;
      }))
      .toBeLessThan(80);
    // Let the observer deliver.
    await page.waitForTimeout(200);
    const long: number[] = await page.evaluate(() => (window as any).__long);
    const figures = {
      tokens: TOKENS,
      characters: expected.length,
      totalMs: Math.round(total),
      longestTaskMs: Math.round(Math.max(0, ...long)),
      longTasks: long.length,
      msInLongTasks: Math.round(long.reduce((a, b) => a + b, 0)),
    };
    console.log(`STREAM BENCH ${JSON.stringify(figures)}`);
    await page.screenshot({ path: "screenshots/ui-bench-20k.png" });
  } finally {
    await front.close();
  }
});
