// axe finds no serious or critical violation on the main screens, at desktop width and at
// 390 px, light and dark: the empty screen, a conversation with a tool card open, the thread
// list, the panel, and the approval dialog. Each is also saved as a screenshot
// (screenshots/screen-<name>-<width>-<scheme>.png) to be looked at after a UI change.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import AxeBuilder from "@axe-core/playwright";
import { approvalRequest, fakeAgora, runStart } from "../bench/fake-agora";
import { connected } from "../support/ui";

/** axe on the screen as it is, then its screenshot. */
async function check(page: Page, screen: string, width: number, scheme: string) {
  await serious(page, screen);
  await page.screenshot({ path: `screenshots/screen-${screen}-${width}-${scheme}.png` });
}

async function serious(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${screen}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(bad, bad.join("\n")).toEqual([]);
}

for (const [width, height] of [
  [1440, 900],
  [390, 844],
]) {
  for (const scheme of ["light", "dark"] as const) {
    test(`main screens at ${width} px, ${scheme}`, async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto("/");
      await connected(page);
      await check(page, "empty", width, scheme);

      await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
      await page.getByLabel("Bericht").press("Enter");
      await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
      await page.getByRole("button", { name: /^Bedrijfsgegevens ophalen/ }).click();
      await check(page, "conversation", width, scheme);

      if (width < 768) {
        await page.getByRole("button", { name: "Inspecties tonen" }).click();
        await check(page, "threads", width, scheme);
        await page.getByRole("button", { name: "Inspecties tonen" }).click();
      }
      await page.getByRole("button", { name: "Onder de motorkap" }).click();
      await check(page, "panel", width, scheme);
    });

    test(`approval dialog at ${width} px, ${scheme}`, async ({ page }) => {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      await fakeAgora(page, (_text, threadId) => [
        ...runStart(threadId, "run-a"),
        approvalRequest("a1", "critical"),
        approvalRequest("a2", "medium"),
      ]);
      await page.goto("/");
      await connected(page);
      await page.getByLabel("Bericht").fill("Rapport");
      await page.getByLabel("Bericht").press("Enter");
      await expect(page.getByRole("dialog")).toBeVisible();
      await check(page, "dialog", width, scheme);
    });
  }
}
