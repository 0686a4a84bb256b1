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

/** Puts the shared development user's language back to Dutch (an English case stores its
 *  choice for that user, and every later spec expects Dutch). */
export async function dutchAgain(page: Page) {
  const origin = new URL(page.url()).origin;
  const response = await page.request.put("/users/me/preferences", {
    data: { language: "nl-NL" },
    headers: { Origin: origin },
  });
  expect(response.ok()).toBe(true);
}
