// Errors show as errors, never as answers: RUN_ERROR (scripted), a moderation refusal (a
// server of its own with a forbidden word), and a run stopped with the Stop button.
import { test, expect } from "../support/fixtures";
import { fakeAgora, runStart } from "../bench/fake-agora";
import { startServer } from "../support/binary";
import { connected, send } from "../support/ui";

test("RUN_ERROR shows as an error, not as an answer", async ({ page }) => {
  await fakeAgora(page, (_text, threadId) => [
    ...runStart(threadId, "run-e"),
    { type: "STEP_STARTED", stepName: "thinking" },
    { type: "RUN_ERROR", message: "Error processing message: LLM rate limit exceeded", code: "processing_error" },
    { type: "RUN_FINISHED", threadId, runId: "run-e" },
  ]);
  await page.goto("/");
  await connected(page);
  await send(page, "Wat zijn de regels?");
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Er ging iets mis");
  await expect(alert).toContainText("LLM rate limit exceeded");
  await expect(alert).toContainText("processing_error");
  // The only article is the inspector's own message.
  await expect(page.getByRole("log").locator("article")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
  await page.screenshot({ path: "screenshots/ui-run-error.png" });
});

test("a moderation refusal explains itself", async ({ page }) => {
  const server = await startServer(["--auth", "dev", "--moderation-terms", "verboden"]);
  try {
    await page.goto(server.url);
    await connected(page);
    await send(page, "Dit is een verboden vraag");
    const alert = page.getByRole("alert");
    await expect(alert).toContainText("Bericht niet verwerkt");
    await expect(alert).toContainText("moderatieregels");
    await expect(alert).toContainText("moderation_violation");
    await expect(page.getByRole("log").locator("article")).toHaveCount(1);
    // Sending the same words again cannot help: no offer to.
    await expect(alert.getByRole("button", { name: "Opnieuw versturen" })).toHaveCount(0);
    await page.screenshot({ path: "screenshots/ui-moderation.png" });
  } finally {
    await server.dispose();
  }
});

// A real server whose model is not reachable (nothing listens on the discard port): the error
// is one that sending again may cure, so the notice offers it, and it sends the message again.
test("a model that does not answer: 'Opnieuw versturen' sends the message again", async ({ page }) => {
  const server = await startServer(["--auth", "dev", "--llm-base-url", "http://127.0.0.1:9/v1"]);
  const mine = page
    .getByRole("log")
    .locator("article")
    .filter({ has: page.getByRole("heading", { name: "U", exact: true }) });
  try {
    await page.goto(server.url);
    await connected(page);
    await send(page, "Welke regels gelden voor koeling?");
    const alert = page.getByRole("alert");
    await expect(alert).toContainText("model_unreachable");
    const again = alert.getByRole("button", { name: "Opnieuw versturen" });
    await expect(again).toBeVisible();
    await page.screenshot({ path: "screenshots/ui-error-resend.png" });
    await again.click();
    await expect(mine.filter({ hasText: "Welke regels gelden voor koeling?" })).toHaveCount(2);
    await expect(page.getByRole("alert")).toHaveCount(2);
  } finally {
    await server.dispose();
  }
});

test("Stop sends agora:cancel_run and the run ends as stopped, keeping what was said", async ({ page }) => {
  const fake = await fakeAgora(page, (_text, threadId) => [
    ...runStart(threadId, "run-s"),
    { type: "STEP_STARTED", stepName: "thinking" },
    { type: "TEXT_MESSAGE_START", messageId: "m-s", role: "assistant", name: "general-agent" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "m-s", delta: "Een half antwoord" },
  ]);
  await page.goto("/");
  await connected(page);
  await send(page, "Vertel iets lang");
  await expect(page.getByRole("log")).toContainText("Een half antwoord");
  // During the run the send button holds a message for after the answer (none typed here).
  await expect(page.getByRole("button", { name: "Na dit antwoord" })).toBeDisabled();
  await page.getByRole("button", { name: "Stop" }).click();
  await expect.poll(() => fake.received.find((f) => f.name === "agora:cancel_run")?.value).toEqual({
    threadId: expect.any(String),
    runId: "run-s",
  });
  fake.send([
    { type: "TEXT_MESSAGE_END", messageId: "m-s" },
    { type: "STEP_FINISHED", stepName: "thinking" },
    { type: "STATE_SNAPSHOT", snapshot: { currentAgent: "general-agent", status: "cancelled" } },
    { type: "RUN_ERROR", message: "De run is gestopt op verzoek van de gebruiker.", code: "cancelled" },
    { type: "RUN_FINISHED", threadId: "x", runId: "run-s" },
  ]);
  await expect(page.getByRole("alert")).toContainText("Gestopt");
  await expect(page.getByRole("log")).toContainText("Een half antwoord");
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden();
});
