// A server of its own is stopped and started again on the same port and data: the page
// reconnects by itself, sends what was typed meanwhile, and shows every message once.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { startServer, type RunningServer } from "../support/binary";
import { send } from "../support/ui";

// The test stops the server on purpose: a reconnect attempt, or a request of the page (the thread
// list's refresh), that meets the closed port is logged by Chromium itself ("WebSocket connection …
// failed" / "Failed to load resource", both net::ERR_CONNECTION_REFUSED).
// (An option's array is written as [value, options]: a bare list of two would be read as one
// pattern and its options.)
test.use({
  allowedConsoleErrors: [
    [
      /WebSocket connection to '.*\/ws' failed: .*ERR_CONNECTION_REFUSED/,
      /^Failed to load resource: net::ERR_CONNECTION_REFUSED$/,
    ],
    { scope: "test" },
  ],
});

/** The log, the connection badge, and the inspector's own messages with a text. */
function screen(page: Page) {
  const log = page.getByRole("log");
  const badge = page.getByRole("status", { name: "Verbindingsstatus" });
  const user = (text: string) =>
    log.locator("article").filter({ has: page.getByRole("heading", { name: "U", exact: true }) }).filter({ hasText: text });
  return { log, badge, user };
}

/** An inspection opened on `server`, then the server stopped: the page is retrying. */
async function startThenLoseTheServer(page: Page, server: RunningServer) {
  const { log, badge } = screen(page);
  await page.goto(server.url);
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await expect(badge).toHaveText("verbonden");
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(log.getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await server.stop();
  await expect(badge).toHaveText(/opnieuw verbinden|fout/);
}

test("reconnects after a restart, sends the queued message, shows nothing twice", async ({ page }) => {
  test.setTimeout(90_000);
  const args = ["--auth", "dev", "--runs-per-minute", "1000"];
  const first = await startServer(args);
  let server: RunningServer = first;
  const { log, badge, user } = screen(page);
  try {
    await startThenLoseTheServer(page, first);
    await expect(page.getByRole("button", { name: "Opnieuw proberen" })).toBeVisible();
    await send(page, "Bevinding: rauwe vis naast groenten bewaard op 12 °C");
    await expect(user("Bevinding: rauwe vis")).toContainText("wacht op verbinding");
    await page.screenshot({ path: "screenshots/ui-offline-queued.png" });

    server = await startServer(args, { dataDir: first.dataDir, port: Number(new URL(first.url).port) });
    await expect(badge).toHaveText("verbonden", { timeout: 30_000 });
    await expect(log.getByText("Regelgeving Specialist")).toBeVisible();
    await expect(user("Bevinding: rauwe vis")).not.toContainText("wacht op verbinding");
    await expect(page.getByRole("button", { name: "Opnieuw proberen" })).toBeHidden();

    // The history came back once, the queued message went once.
    await expect(user("Start inspectie bij Trattoria Finta Fiore")).toHaveCount(1);
    await expect(user("Bevinding: rauwe vis")).toHaveCount(1);
    await expect(log.locator("article").filter({ hasText: "Bedrijfsinformatie Specialist" })).toHaveCount(1);
    await expect(log.locator("article").filter({ hasText: "Regelgeving Specialist" })).toHaveCount(1);
    await page.screenshot({ path: "screenshots/ui-reconnected.png" });
  } finally {
    await server.dispose();
    if (server !== first) await first.dispose();
  }
});

// The server stops a thread's running run when the thread gets a new message. Messages typed in
// a dead zone therefore go one answer at a time: here the second asks for the report, whose run
// waits for the inspector's approval; the third must wait for that decision, not stop the run.
test("messages typed while the server is away go one answer at a time, none stops another's run", async ({ page }) => {
  test.setTimeout(90_000);
  const args = ["--auth", "dev", "--runs-per-minute", "1000"];
  const first = await startServer(args);
  let server: RunningServer = first;
  const { log, badge, user } = screen(page);
  try {
    await startThenLoseTheServer(page, first);
    await send(page, "Bevinding: rauwe vis naast groenten bewaard op 12 °C");
    await send(page, "Genereer het inspectierapport zonder vragen");
    await send(page, "Bevinding: geen zeep bij de handenwasplaats");
    for (const text of ["Bevinding: rauwe vis", "Genereer het inspectierapport", "Bevinding: geen zeep"]) {
      await expect(user(text)).toContainText("wacht op verbinding");
    }

    server = await startServer(args, { dataDir: first.dataDir, port: Number(new URL(first.url).port) });
    await expect(badge).toHaveText("verbonden", { timeout: 30_000 });
    // The finding was answered, then the report's run asked for approval, and the last message
    // still waits: sent now, it would have stopped the run that waits for the decision.
    const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
    await expect(dialog).toBeVisible({ timeout: 30_000 });
    await expect(user("Bevinding: rauwe vis")).not.toContainText("wacht op verbinding");
    await expect(user("Genereer het inspectierapport")).not.toContainText("wacht op verbinding");
    await expect(user("Bevinding: geen zeep")).toContainText("wacht op verbinding");
    await page.screenshot({ path: "screenshots/ui-reconnect-queue-waits-for-approval.png" });

    await dialog.getByRole("button", { name: "Goedkeuren" }).click();
    await expect(page.getByRole("link", { name: /Download PDF/ })).toBeVisible();
    // The report's run finished, then the last message went and was answered.
    await expect(user("Bevinding: geen zeep")).not.toContainText("wacht op verbinding");
    await expect(log.locator("article").filter({ hasText: "Regelgeving Specialist" })).toHaveCount(2);
    for (const text of ["Bevinding: rauwe vis", "Genereer het inspectierapport", "Bevinding: geen zeep"]) {
      await expect(user(text)).toHaveCount(1);
    }
    await page.screenshot({ path: "screenshots/ui-reconnect-queue-answered.png" });
  } finally {
    await server.dispose();
    if (server !== first) await first.dispose();
  }
});
