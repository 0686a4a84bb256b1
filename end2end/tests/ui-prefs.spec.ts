// Language and theme: Dutch by default, English switchable and remembered; light, dark or
// system; the layout from 390 px wide, with the thread list behind a button.
import { test, expect } from "../support/fixtures";
import { hydrated } from "../support/ui";

test("English is switchable and remembered; Dutch is the default", async ({ page }) => {
  await page.goto("/");
  await hydrated(page);
  await expect(page.locator("html")).toHaveAttribute("lang", "nl");
  await expect(page.getByRole("button", { name: "Nieuwe inspectie" })).toBeVisible();
  await page.getByRole("button", { name: "EN", exact: true }).click();
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("status", { name: "Connection status" })).toHaveText("connected");
  await expect(page.getByRole("button", { name: "Send" })).toBeDisabled();
  await expect(page.getByLabel("Message")).toBeVisible();
  await expect(page.getByRole("button", { name: "New inspection" })).toBeVisible();
  await expect(page.getByText("Start an inspection")).toBeVisible();
  await page.getByLabel("Message").fill("Start inspectie bij Trattoria Finta Fiore");
  await page.getByLabel("Message").press("Enter");
  await expect(page.getByRole("button", { name: "Get company data, done" })).toBeVisible();
  await page.screenshot({ path: "screenshots/ui-english.png" });
  await page.reload();
  await hydrated(page);
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
  await page.getByRole("button", { name: "NL", exact: true }).click();
  await expect(page.getByRole("button", { name: "Verstuur" })).toBeVisible();
});

test("the theme is light, dark or the system's, and remembered", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  await hydrated(page);
  const html = page.locator("html");
  const theme = page.getByLabel("Thema");
  await expect(html).not.toHaveClass(/dark/);
  await theme.selectOption("dark");
  await expect(html).toHaveClass(/dark/);
  const background = await page.locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  expect(background).not.toBe("rgb(248, 250, 252)");
  await page.screenshot({ path: "screenshots/ui-dark.png" });
  // Set before the first paint on reload (inline script), kept after hydration.
  await page.reload();
  await expect(html).toHaveClass(/dark/);
  await hydrated(page);
  await expect(theme).toHaveValue("dark");
  await theme.selectOption("system");
  await expect(html).not.toHaveClass(/dark/);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.reload();
  await expect(html).toHaveClass(/dark/);
  // The choice is the hydrated page's to act on (before it, the select is only HTML).
  await hydrated(page);
  await theme.selectOption("light");
  await expect(html).not.toHaveClass(/dark/);
});

test("from 390 px wide: the thread list and the panel open over the conversation", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await hydrated(page);
  const threads = page.getByRole("navigation", { name: "Inspecties" });
  await expect(threads).toBeHidden();
  // One button for the list: the tablet's fold button is not shown beside the phone's.
  await expect(page.locator("header button[aria-controls=threads]:visible")).toHaveCount(1);
  const open = page.getByRole("button", { name: "Inspecties tonen" });
  await open.click();
  await expect(threads).toBeVisible();
  await expect(open).toHaveAttribute("aria-expanded", "true");
  await page.screenshot({ path: "screenshots/ui-mobile-threads.png" });
  await open.click();
  await expect(threads).toBeHidden();
  await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
  await page.getByLabel("Bericht").press("Enter");
  await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  // Nothing wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: "screenshots/ui-mobile-chat.png" });
  await page.getByRole("button", { name: "Onder de motorkap" }).click();
  await expect(page.getByRole("complementary", { name: "Onder de motorkap" })).toBeVisible();
  await page.screenshot({ path: "screenshots/ui-mobile-hood.png" });
});
