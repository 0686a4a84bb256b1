// The thread list against the real binary: a new inspection, switching (history over the
// socket, each message once), renaming in place, deleting after a confirmation.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected, send } from "../support/ui";

async function rename(page: Page, from: RegExp, to: string) {
  const threads = page.getByRole("navigation", { name: "Inspecties" });
  await threads.getByRole("button", { name: from }).first().click();
  const input = threads.getByLabel("Naam van de inspectie");
  await expect(input).toBeFocused();
  await input.fill(to);
  await input.press("Enter");
  await expect(threads.getByRole("button", { name: new RegExp(`^${to}`) })).toBeVisible();
}

test("threads: a new inspection, switching, renaming and deleting", async ({ page }) => {
  const stamp = Date.now();
  const a = `Finta Fiore ${stamp}`;
  const b = `Allergenen ${stamp}`;
  const threads = page.getByRole("navigation", { name: "Inspecties" });
  const log = page.getByRole("log");

  await page.goto("/");
  await connected(page);
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(log.getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  // The open thread is the current one in the list, named after the company once it is looked up
  // (issue 34); name it to find it again.
  await expect(threads.locator("[aria-current=true]")).toContainText("Trattoria Finta Fiore, Amsterdam");
  await rename(page, /^Hernoemen: Trattoria Finta Fiore, Amsterdam/, a);

  await threads.getByRole("button", { name: "Nieuwe inspectie" }).click();
  await expect(page.getByText("Start een inspectie")).toBeVisible();
  await expect(log.locator("article")).toHaveCount(0);
  await send(page, "Which rules apply to allergen information in a restaurant?");
  await expect(log.getByText("Regelgeving Specialist")).toBeVisible();
  await expect(threads.locator("[aria-current=true]")).toContainText("Which rules apply");
  await rename(page, /^Hernoemen: Which rules apply/, b);
  // Most recent activity first, with a relative time.
  const names = threads.locator("li button[data-action=open]");
  await expect(names.first()).toContainText(b);
  await expect(names.first()).toContainText("zojuist");
  await page.screenshot({ path: "screenshots/ui-threads.png" });

  // Each thread has its own address: back and forward move between them, a link opens one.
  expect(page.url()).toMatch(/\/t\/[0-9a-f-]{36}$/);
  await page.goBack();
  await expect(threads.locator("[aria-current=true]")).toContainText(a);
  await expect(log.getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await expect(log.getByText("Regelgeving Specialist")).toHaveCount(0);
  const addressOfA = page.url();
  await page.goForward();
  await expect(threads.locator("[aria-current=true]")).toContainText(b);
  await expect(log.getByText("Regelgeving Specialist")).toBeVisible();
  const other = await page.context().newPage();
  await other.goto(addressOfA);
  await connected(other);
  await expect(other.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await expect(other.getByRole("navigation", { name: "Inspecties" }).locator("[aria-current=true]")).toContainText(a);
  await other.close();

  // Switch: the history comes over the socket, each message once, with its tool chips.
  await threads.getByRole("button", { name: new RegExp(`^${a}`) }).click();
  await expect(log.getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await expect(log.getByText("Regelgeving Specialist")).toHaveCount(0);
  await expect(log.getByText("Start inspectie bij Trattoria Finta Fiore", { exact: true })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Bedrijfsgegevens ophalen, klaar" })).toBeVisible();
  await expect(threads.locator("[aria-current=true]")).toContainText(a);

  // The name is the server's; a reload opens the same thread.
  const titles = async () =>
    (await (await page.request.get("/sessions?limit=100")).json()).sessions.map((s: any) => s.title);
  expect(await titles()).toEqual(expect.arrayContaining([a, b]));
  await page.reload();
  await connected(page);
  await expect(log.getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await expect(threads.locator("[aria-current=true]")).toContainText(a);

  // Delete asks first; Cancel keeps it and gives the focus back.
  const deleteB = threads.getByRole("button", { name: `Verwijderen: ${b}` });
  await deleteB.click();
  const confirm = threads.getByRole("group", { name: "Verwijderen" });
  await expect(confirm).toContainText("verwijderen?");
  await expect(confirm.getByRole("button", { name: "Ja, verwijderen" })).toBeFocused();
  await page.screenshot({ path: "screenshots/ui-thread-delete-confirm.png" });
  await confirm.getByRole("button", { name: "Annuleren" }).click();
  await expect(deleteB).toBeFocused();
  await deleteB.click();
  await threads.getByRole("button", { name: "Ja, verwijderen" }).click();
  await expect(threads.getByRole("button", { name: new RegExp(`^${b}`) })).toHaveCount(0);
  await expect.poll(titles).not.toContain(b);

  // Deleting the open thread opens a new, empty inspection.
  await threads.getByRole("button", { name: `Verwijderen: ${a}` }).click();
  await threads.getByRole("button", { name: "Ja, verwijderen" }).click();
  await expect.poll(titles).not.toContain(a);
  await expect(page.getByText("Start een inspectie")).toBeVisible();
  await expect(log.locator("article")).toHaveCount(0);
});
