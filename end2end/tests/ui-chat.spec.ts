// The conversation against the real binary: streamed answers, tool chips and cards, the
// status line, the composer's keys, and the answer to a regulation question.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected, send } from "../support/ui";
import { type AgoraEvent, fakeAgora, textRun } from "../bench/fake-agora";

const log = (page: Page) => page.getByRole("log");

test("an answer streams in, then reads as Markdown, with tool chips that open their cards", async ({ page }) => {
  // The real server's events, slowed down so the stream can be watched: 40 ms a frame keeps the
  // answer streaming for a few seconds, long enough for the checks below to see it growing on a
  // busy machine (at 12 ms it was sometimes over before the caret was looked for).
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    let queue = Promise.resolve();
    server.onMessage((message) => {
      queue = queue.then(() => new Promise((r) => setTimeout(r, 40))).then(() => ws.send(message));
    });
  });
  await page.goto("/");
  await connected(page);
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(log(page).getByText("Start inspectie bij Trattoria Finta Fiore")).toBeVisible();

  // The status line follows the steps.
  await expect(page.getByRole("status", { name: "Voortgang" })).toContainText(/uitgekozen|denken|ophalen|controleren|Overdragen/);
  await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();

  // While it streams: marked busy and growing; a finished block already reads as Markdown
  // (the heading), the growing paragraph is plain text with a caret.
  const answer = log(page).locator("article[aria-busy=true]");
  await expect(answer).toContainText("Trattoria Finta Fiore");
  await expect(answer.getByRole("heading", { name: "Trattoria Finta Fiore (KVK 99990001)" })).toBeVisible();
  await expect(answer.locator("p.whitespace-pre-wrap [aria-hidden=true]")).toHaveText("▍");
  const early = (await answer.innerText()).length;
  await page.screenshot({ path: "screenshots/ui-chat-streaming.png" });
  await expect
    .poll(async () => (await log(page).locator("article").last().innerText()).length)
    .toBeGreaterThan(early);

  // At the end: Markdown (a heading, a list, bold), the agent's name, no busy mark.
  const done = log(page).locator("article").filter({ hasText: "Bedrijfsinformatie Specialist" });
  await expect(done.getByRole("heading", { name: "Trattoria Finta Fiore (KVK 99990001)" })).toBeVisible({ timeout: 20_000 });
  await expect(done.locator("li").first()).toBeVisible();
  await expect(done.locator("strong").first()).toBeVisible();
  await expect(log(page).locator("article[aria-busy=true]")).toHaveCount(0);
  // Screen readers: the log does not read out every streamed token; the finished answer is
  // announced once, through the polite live region after it.
  await expect(log(page)).toHaveAttribute("aria-live", "off");
  await expect(page.locator("p.sr-only[aria-live=polite]")).toContainText("Trattoria Finta Fiore");
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
  await expect(page.getByRole("status", { name: "Voortgang" })).toHaveText("");

  // Tool chips: one per call, each opens its card.
  for (const name of ["Overdragen aan specialist", "Bedrijf controleren", "Bedrijfsgegevens ophalen", "Inspectiegeschiedenis ophalen"]) {
    await expect(page.getByRole("button", { name: new RegExp(`^${name}, klaar`) })).toBeVisible();
  }
  const chip = page.getByRole("button", { name: /^Bedrijfsgegevens ophalen/ });
  await chip.click();
  await expect(chip).toHaveAttribute("aria-expanded", "true");
  const card = page.getByRole("region", { name: "Bedrijfsgegevens ophalen" });
  await expect(card).toContainText("Argumenten");
  await expect(card).toContainText('"kvk": "99990001"');
  await expect(card).toContainText("Resultaat");
  await expect(card).toContainText("Trattoria Finta Fiore");
  await page.screenshot({ path: "screenshots/ui-chat-tool-card.png", fullPage: true });
  await card.getByRole("button", { name: "Sluiten" }).click();
  await expect(card).toBeHidden();
  await expect(chip).toBeFocused();
  await expect(chip).toHaveAttribute("aria-expanded", "false");
  await page.screenshot({ path: "screenshots/ui-chat-answer.png" });
});

test("a regulation question gets the regulation agent's answer with its sources", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  await send(page, "Which rules apply to allergen information in a restaurant?");
  const answer = log(page).locator("article").filter({ hasText: "Regelgeving Specialist" });
  await expect(answer).toContainText("1169/2011");
  await expect(answer.locator("ol > li").first()).toBeVisible();
  for (const name of ["Regelgeving zoeken", "Wetsartikelen opzoeken"]) {
    await expect(page.getByRole("button", { name: new RegExp(`^${name}`) })).toBeVisible();
  }
});

test("Enter sends, Shift+Enter starts a new line, and the composer waits during a run", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  const box = page.getByLabel("Bericht");
  await box.fill("Bevinding: rauwe vis");
  await box.press("Shift+Enter");
  await box.pressSequentially("naast groenten bewaard op 12 °C");
  await expect(box).toHaveValue("Bevinding: rauwe vis\nnaast groenten bewaard op 12 °C");
  await box.press("Enter");
  await expect(box).toHaveValue("");
  const bubble = log(page)
    .locator("article")
    .filter({ has: page.getByRole("heading", { name: "U", exact: true }) })
    .filter({ hasText: "Bevinding: rauwe vis" });
  await expect(bubble).toContainText("naast groenten");
  await expect(log(page).locator("article").filter({ hasText: "Regelgeving Specialist" })).toBeVisible();
});

test("at its end an answer keeps the blocks it showed while streaming; a loose list is drawn again as one", async ({ page }) => {
  const streamed = (answer: string) => answer.match(/[^]{1,7}/g)!;
  let held: AgoraEvent[] = [];
  const fake = await fakeAgora(page, (text, threadId) => {
    const answer = text.includes("lijst")
      ? "Twee punten:\n\n- koelcel\n\n- afvoer\n\nDat was het."
      : "## Koelcel\n\nDe temperatuur was **9 °C**.\n\n- te warm\n- geen registratie\n\nTot slot een zin zonder regeleinde";
    const events = textRun(threadId, streamed(answer), "regulation-agent");
    // Everything up to the message's end now; the end when the test says so.
    const end = events.findIndex((e) => e.type === "TEXT_MESSAGE_END");
    held = events.slice(end);
    return events.slice(0, end);
  });
  await page.goto("/");
  await connected(page);
  const answer = () => log(page).locator("article").last();

  await send(page, "Hoe was de koelcel?");
  await expect(answer().getByRole("heading", { name: "Koelcel" })).toBeVisible();
  await expect(answer().locator("ul > li")).toHaveCount(2);
  await answer().getByRole("heading", { name: "Koelcel" }).evaluate((h) => ((h as any).__streamed = true));
  fake.send(held);
  await expect(log(page).locator("article[aria-busy=true]")).toHaveCount(0);
  // The same heading element, the list once, the last sentence as a paragraph, no caret.
  expect(await answer().getByRole("heading", { name: "Koelcel" }).evaluate((h) => (h as any).__streamed === true)).toBe(true);
  await expect(answer().locator("ul")).toHaveCount(1);
  await expect(answer().locator("p", { hasText: "Tot slot een zin zonder regeleinde" })).toBeVisible();
  await expect(answer().getByText("▍")).toHaveCount(0);
  await expect(answer().locator("p.whitespace-pre-wrap")).toHaveCount(0);

  await send(page, "Geef een lijst");
  await expect(answer()).toContainText("Twee punten");
  await expect(answer().locator("ul")).toHaveCount(2);
  fake.send(held);
  await expect(log(page).locator("article[aria-busy=true]")).toHaveCount(0);
  // The blank lines had cut the list in two while it streamed; the whole text is one list.
  await expect(answer().locator("ul")).toHaveCount(1);
  await expect(answer().locator("ul > li")).toHaveCount(2);
  await expect(answer().getByText("▍")).toHaveCount(0);
});
