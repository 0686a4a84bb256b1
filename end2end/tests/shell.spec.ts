import { test, expect } from "../support/fixtures";
import { hydrated } from "../support/ui";

test("the shell renders on the server, hydrates and connects to /ws", async ({ page }) => {
  const socket = page.waitForEvent("websocket");

  await page.goto("/");
  await expect(page.getByRole("heading", { name: "AGORA HAI" })).toBeVisible();
  await hydrated(page);

  const ws = await socket;
  expect(new URL(ws.url()).pathname).toBe("/ws");
  await expect(page.getByRole("status", { name: "Verbindingsstatus" })).toHaveText("verbonden");

  const send = page.getByRole("button", { name: "Verstuur" });
  await expect(send).toBeDisabled();
  await page.getByLabel("Bericht").fill("Goedemorgen");
  await expect(send).toBeEnabled();
  await page.getByLabel("Bericht").fill("");
  await expect(send).toBeDisabled();

  await page.screenshot({ path: "screenshots/shell.png", fullPage: true });
});
