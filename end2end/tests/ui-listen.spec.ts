// Listen mode (issue 38) at tablet width: the header's switch turns it on, observations get a
// mark instead of an answer, a reload keeps the mode, and the switch again (the wake word
// "AGORA") brings one answer that covers them all. Screenshots of listen mode on and of the
// gathered answer, light and dark, to be looked at.
import { test, expect } from "../support/fixtures";
import { connected, send } from "../support/ui";

const observations = [
  "De saladette met gesneden tomaten staat op 11 graden.",
  "Er liggen muizenkeutels achter de vriezer in het magazijn.",
  "Bij de handenwasbak in de keuken is geen zeep.",
];

test("listen mode: marks instead of answers, kept over a reload, one gathered answer", async ({ page }) => {
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto(`/t/listen-${Date.now()}`);
  await connected(page);
  const log = page.getByRole("log");
  const marks = log.getByText(/^✓ \d+$/);
  const listen = page.getByRole("button", { name: "Luistermodus" });
  await expect(listen).toHaveAttribute("aria-pressed", "false");

  await send(page, "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.");
  await expect(log.getByText("Bedrijfsinformatie Specialist").first()).toBeVisible({ timeout: 30_000 });
  await listen.click();
  await expect(listen).toHaveAttribute("aria-pressed", "true");
  await expect(log.getByText(/Luistermodus aan/)).toBeVisible();

  for (const [n, text] of observations.entries()) {
    await send(page, text);
    await expect(marks).toHaveCount(n + 1);
  }
  await page.screenshot({ path: "screenshots/listen-on-820-light.png" });

  // The reload in dark: the mode is kept, and the screen is looked at in both themes.
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await connected(page);
  await expect(listen).toHaveAttribute("aria-pressed", "true");
  await expect(marks).toHaveCount(observations.length);
  await page.screenshot({ path: "screenshots/listen-on-820-dark.png" });

  await listen.click();
  await expect(listen).toHaveAttribute("aria-pressed", "false");
  const answer = log.locator("article").filter({ hasText: /Tot nu toe \d+ bevindingen/ });
  await expect(answer).toBeVisible({ timeout: 30_000 });
  for (const key of ["saladette", "muizenkeutels", "zeep"]) {
    await expect(answer).toContainText(key);
  }
  await page.screenshot({ path: "screenshots/listen-gathered-820-dark.png" });
  await page.emulateMedia({ colorScheme: "light" });
  await page.reload();
  await connected(page);
  await expect(answer).toBeVisible();
  await page.screenshot({ path: "screenshots/listen-gathered-820-light.png" });
});
