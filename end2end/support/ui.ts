// Steps every UI test takes against the real page.
import { expect, type Page } from "@playwright/test";

/** Waits until the wasm bundle has taken over the page: before that, clicks are lost. */
export async function hydrated(page: Page) {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}

/** Hydrated, and the socket to /ws is open. */
export async function connected(page: Page) {
  await hydrated(page);
  await expect(page.getByRole("status", { name: "Verbindingsstatus" })).toHaveText("verbonden");
}

/** Types a message and sends it with Enter. */
export async function send(page: Page, text: string) {
  await page.getByLabel("Bericht").fill(text);
  await page.getByLabel("Bericht").press("Enter");
}
