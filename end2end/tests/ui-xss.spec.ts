// Model output with HTML in it renders as text: no element is created from it and no script
// runs, while its Markdown still renders. The inspector's own HTML, echoed, is text too.
import { test, expect } from "../support/fixtures";
import { fakeAgora, textRun } from "../bench/fake-agora";
import { connected, send } from "../support/ui";

const payload =
  "## Resultaat\n\nZie <img src=x onerror=\"window.__xss='img'\"> en <script>window.__xss='script'</script>.\n\n" +
  "- **vet** <b>geen vet</b>\n- [link](javascript:window.__xss='link')\n\n| a | <i>b</i> |\n|---|---|\n| <svg onload=\"window.__xss='svg'\"> | 2 |\n\n" +
  "```\n<script>window.__xss='code'</script>\n```";

test("HTML in a model answer is shown as text and never runs", async ({ page }) => {
  await fakeAgora(page, (_text, threadId) => textRun(threadId, payload.match(/.{1,7}/gs)!));
  await page.goto("/");
  await connected(page);
  await send(page, "Laat HTML zien");
  const answer = page.getByRole("log").locator("article").filter({ hasText: "Resultaat" });
  await expect(answer.getByRole("heading", { name: "Resultaat" })).toBeVisible();
  await expect(answer).toContainText(`<img src=x onerror="window.__xss='img'">`);
  await expect(answer).toContainText("<script>window.__xss='script'</script>");
  await expect(answer).toContainText("<b>geen vet</b>");
  await expect(answer.locator("strong")).toHaveText("vet");
  await expect(answer.locator("table")).toContainText("<i>b</i>");
  await expect(answer.locator("pre")).toContainText("<script>window.__xss='code'</script>");
  for (const tag of ["img", "script", "b", "i", "svg"]) {
    await expect(answer.locator(tag)).toHaveCount(0);
  }
  await expect(answer.locator("a[href^=javascript]")).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
  await page.screenshot({ path: "screenshots/ui-xss.png" });
});

test("the inspector's own HTML is shown as text", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  const text = `<img src=x onerror="window.__xss='user'"> <script>window.__xss='user'</script>`;
  await send(page, text);
  const bubble = page.getByRole("log").locator("article").first();
  await expect(bubble).toContainText(text);
  await expect(page.getByRole("log").locator("img, script")).toHaveCount(0);
  // Let the agent answer (it may quote the message) and check again.
  await expect(page.getByRole("log").locator("article")).toHaveCount(2, { timeout: 20_000 });
  await expect(page.getByRole("log").locator("img, script")).toHaveCount(0);
  expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
});
