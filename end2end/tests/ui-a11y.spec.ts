// axe finds no serious or critical violation on the main screens, at desktop width and at
// 390 px, light and dark: the empty screen, a conversation with a tool card open, the thread
// list, the panel, and the approval dialog.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import AxeBuilder from "@axe-core/playwright";
import { approvalRequest, fakeAgora, runStart } from "../bench/fake-agora";
import { connected } from "../support/ui";

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
      await serious(page, "empty");

      await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
      await page.getByLabel("Bericht").press("Enter");
      await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
      await page.getByRole("button", { name: /^Bedrijfsgegevens ophalen/ }).click();
      await serious(page, "conversation");
      await page.screenshot({ path: `screenshots/ui-a11y-${width}-${scheme}.png` });

      if (width < 768) {
        await page.getByRole("button", { name: "Inspecties tonen" }).click();
        await serious(page, "threads");
        await page.getByRole("button", { name: "Inspecties tonen" }).click();
      }
      await page.getByRole("button", { name: "Onder de motorkap" }).click();
      await serious(page, "panel");
    });
  }

  test(`approval dialog at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height });
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
    await serious(page, "dialog");
    await page.screenshot({ path: `screenshots/ui-a11y-dialog-${width}.png` });
  });
}
