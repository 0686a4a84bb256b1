// Nothing lost in a dead zone (issue 16), against the release binary: the network goes away
// mid-answer or while the approval dialog is open, the page is reloaded mid-run, a message is
// typed with no connection and the page reloaded: the run goes on at the server, and the page
// shows exactly what it missed, once, and sends what was typed once.
import { createServer, type Server } from "node:http";
import { type AddressInfo } from "node:net";
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { startServer, type RunningServer } from "../support/binary";
import { connected, send } from "../support/ui";

/** The answer the slow model streams: forty numbered words, one every 150 ms (6 s). */
const WORDS = Array.from({ length: 40 }, (_, i) => `woord${i + 1}`);
const ANSWER = WORDS.join(" ");

/**
 * An OpenAI-compatible model server that streams ANSWER slowly, so the network can drop in
 * the middle of it.
 */
async function slowModel(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.method !== "POST" || !request.url?.endsWith("/chat/completions")) {
      response.writeHead(404).end();
      return;
    }
    request.resume();
    request.on("end", async () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({
          id: "chatcmpl-slow",
          object: "chat.completion.chunk",
          created: 0,
          model: "slow",
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`;
      response.write(chunk({ role: "assistant", content: "" }, null));
      for (const [i, word] of WORDS.entries()) {
        await new Promise((r) => setTimeout(r, 150));
        if (response.destroyed) return;
        response.write(chunk({ content: i === 0 ? word : ` ${word}` }, null));
      }
      response.write(chunk({}, "stop"));
      response.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, server };
}

const badge = (page: Page) => page.getByRole("status", { name: "Verbindingsstatus" });
const answers = (page: Page) =>
  page.getByRole("log").locator("article").filter({ hasNot: page.getByRole("heading", { name: "U", exact: true }) });

test.describe("with a slow model", () => {
  let model: { url: string; server: Server };
  let hai: RunningServer;

  test.beforeAll(async () => {
    model = await slowModel();
    hai = await startServer([
      "--auth", "dev", "--runs-per-minute", "1000",
      "--llm-base-url", model.url, "--llm-model", "slow", "--llm-context-tokens", "8192",
    ]);
  });

  test.afterAll(async () => {
    await hai?.dispose();
    model?.server.close();
  });

  test("offline for 30 s mid-answer: the answer completes without gaps or duplicates", async ({ page, context }) => {
    test.setTimeout(90_000);
    await page.goto(hai.url);
    await connected(page);
    await send(page, "Welke regels gelden voor allergenen?");
    await expect(answers(page).last()).toContainText("woord3");
    await context.setOffline(true);
    await expect(badge(page)).toHaveText("offline");
    const partial = (await answers(page).last().innerText()).trim();
    expect(partial).not.toContain("woord40");
    await page.screenshot({ path: "screenshots/ui-offline-mid-answer.png" });
    // The run finishes at the server meanwhile.
    await page.waitForTimeout(30_000);
    await context.setOffline(false);
    await expect(badge(page)).toHaveText("verbonden", { timeout: 20_000 });
    await expect(answers(page).last()).toContainText("woord40");
    const text = await page.getByRole("log").innerText();
    for (const word of WORDS) {
      expect(text.match(new RegExp(`\\b${word}\\b`, "g")), word).toHaveLength(1);
    }
    expect(text).toContain(ANSWER);
    await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
    await page.screenshot({ path: "screenshots/ui-offline-caught-up.png" });
  });

  test("a reload mid-answer resumes the run from its start, once", async ({ page }) => {
    test.setTimeout(60_000);
    await page.goto(hai.url);
    await connected(page);
    await send(page, "Welke regels gelden voor de koelketen?");
    await expect(answers(page).last()).toContainText("woord5");
    await page.reload();
    await connected(page);
    await expect(answers(page).last()).toContainText("woord40", { timeout: 20_000 });
    const text = await page.getByRole("log").innerText();
    expect(text).toContain(ANSWER);
    expect(text.match(/Welke regels gelden voor de koelketen\?/g)).toHaveLength(1);
    for (const word of WORDS) {
      expect(text.match(new RegExp(`\\b${word}\\b`, "g")), word).toHaveLength(1);
    }
  });
});

/** An inspection, then the report: the approval dialog opens. */
async function askForReport(page: Page) {
  await page.goto("/");
  await connected(page);
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await send(page, "Genereer het inspectierapport zonder vragen");
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  await expect(dialog).toBeVisible();
  return dialog;
}

test("offline while the approval dialog is open, then back: approving produces the PDF", async ({ page, context }) => {
  test.setTimeout(60_000);
  const dialog = await askForReport(page);
  await context.setOffline(true);
  await expect(badge(page)).toHaveText("offline");
  // The run waits at the server; the dialog stays.
  await page.waitForTimeout(3_000);
  await expect(dialog).toBeVisible();
  await page.screenshot({ path: "screenshots/ui-offline-approval.png" });
  await context.setOffline(false);
  await expect(badge(page)).toHaveText("verbonden", { timeout: 20_000 });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("link", { name: /Download PDF/ })).toBeVisible();
});

test("a reload while the report waits for approval reopens the dialog; approving produces the PDF", async ({ page }) => {
  test.setTimeout(60_000);
  await askForReport(page);
  await page.reload();
  await connected(page);
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("Inspectierapport genereren");
  await page.screenshot({ path: "screenshots/ui-reload-approval.png" });
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("link", { name: /Download PDF/ })).toBeVisible();
  // The inspection's messages show once.
  const log = page.getByRole("log");
  await expect(log.getByText("Start inspectie bij Trattoria Finta Fiore")).toHaveCount(1);
  await expect(log.getByText("Genereer het inspectierapport")).toHaveCount(1);
});

test("text typed without a connection survives a reload and is sent exactly once", async ({ page, request }) => {
  test.setTimeout(60_000);
  // The socket cannot connect while `blocked`; pages and REST still load (a tablet whose
  // WebSocket is cut by a proxy, or a dead zone that lets the page itself come from cache).
  let blocked = false;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (blocked) ws.close({ code: 4000, reason: "blocked" });
    else ws.connectToServer();
  });
  await page.goto("/");
  await connected(page);
  const thread = await page.evaluate(() => localStorage.getItem("hai.threadId"));
  blocked = true;
  await page.evaluate(() => window.dispatchEvent(new Event("offline")));
  await expect(badge(page)).toHaveText("offline");
  const finding = "Bevinding: koelcel op 9 °C, temperatuurlog ontbreekt";
  await send(page, finding);
  const queued = page.getByRole("log").locator("article").filter({ hasText: finding });
  await expect(queued).toContainText("wacht op verbinding");
  // A draft typed and not sent is kept too.
  await page.getByLabel("Bericht").fill("Nog een bevinding in concept");

  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await expect(queued).toContainText("wacht op verbinding");
  await expect(page.getByLabel("Bericht")).toHaveValue("Nog een bevinding in concept");
  await page.screenshot({ path: "screenshots/ui-queued-after-reload.png" });

  blocked = false;
  // The page retries by itself too (back online after the reload): its next attempt may
  // connect before the click, and then the button is gone, which is as good.
  const retry = page.getByRole("button", { name: "Opnieuw proberen" });
  await retry.click({ timeout: 5_000 }).catch(() => expect(retry).toBeHidden());
  await expect(badge(page)).toHaveText("verbonden", { timeout: 20_000 });
  await expect(queued).not.toContainText("wacht op verbinding");
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden({ timeout: 20_000 });
  // Another reload sends nothing again.
  await page.reload();
  await connected(page);
  await expect(page.getByRole("log").getByText(finding)).toHaveCount(1);
  const history = await (await request.get(`/sessions/${thread}/history`)).json();
  const sent = JSON.stringify(history).split(finding).length - 1;
  expect(sent, JSON.stringify(history)).toBe(1);
});
