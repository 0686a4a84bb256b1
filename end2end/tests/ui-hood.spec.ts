// "Onder de motorkap": agents idle, active or executing; tool calls grouped by agent with
// their details; the raw event log with folded deltas and the verifier's warnings.
import { test, expect } from "../support/fixtures";
import { fakeAgora, runStart } from "../bench/fake-agora";
import { connected, send } from "../support/ui";

test("the panel shows the agents, the tool calls by agent and the raw events", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  const toggle = page.getByRole("button", { name: "Onder de motorkap" });
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  const hood = page.getByRole("complementary", { name: "Onder de motorkap" });
  for (const agent of ["Algemene Assistent", "Bedrijfsinformatie Specialist", "Regelgeving Specialist", "Rapportage Specialist"]) {
    await expect(hood.locator("li", { hasText: agent })).toContainText("inactief");
  }
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();

  // Tool calls under the agent that made them, with their details.
  const tools = hood.getByRole("region", { name: "Toolaanroepen" });
  await expect(tools.getByRole("heading", { name: "Algemene Assistent" })).toBeVisible();
  await expect(tools.getByRole("heading", { name: "Bedrijfsinformatie Specialist" })).toBeVisible();
  const call = tools.locator("details", { hasText: "Bedrijfsgegevens ophalen" });
  await call.locator("summary").click();
  await expect(call).toContainText("klaar");
  await expect(call).toContainText('"kvk": "99990001"');
  await expect(call).toContainText(/\d+ ms|\d+\.\d s/);

  // The raw log: every event type, deltas folded into one line.
  const events = hood.getByRole("list", { name: "Ruwe eventlog" });
  for (const kind of ["RUN_STARTED", "STATE_SNAPSHOT", "STEP_STARTED", "TOOL_CALL_START", "TOOL_CALL_RESULT", "TEXT_MESSAGE_START", "RUN_FINISHED"]) {
    await expect(events.locator("li", { hasText: kind }).first()).toBeVisible();
  }
  // (Spoken text comes between the written deltas, so one message may take a few lines.)
  await expect(events.locator("li", { hasText: "TEXT_MESSAGE_CONTENT" }).first()).toContainText(/×\d+/);
  await expect(hood.getByText(/van de verifier/)).toHaveCount(0);
  await page.screenshot({ path: "screenshots/ui-hood.png" });

  await hood.getByRole("button", { name: "Sluiten" }).click();
  await expect(hood).toBeHidden();
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
});

test("agents show active and executing; a broken stream shows the verifier's warnings", async ({ page }) => {
  const fake = await fakeAgora(page, (_text, threadId) => [
    ...runStart(threadId, "run-h", "regulation-agent"),
    { type: "STEP_STARTED", stepName: "thinking" },
  ]);
  await page.goto("/");
  await connected(page);
  await page.getByRole("button", { name: "Onder de motorkap" }).click();
  const hood = page.getByRole("complementary", { name: "Onder de motorkap" });
  await send(page, "Regels?");
  const regulation = hood.locator("li", { hasText: "Regelgeving Specialist" });
  await expect(regulation).toContainText("actief");
  await expect(regulation.locator("[data-activity=active]")).toBeVisible();
  await expect(page.getByRole("status", { name: "Voortgang" })).toHaveText("Regelgeving Specialist aan het denken...");

  fake.send([
    { type: "STEP_FINISHED", stepName: "thinking" },
    { type: "STEP_STARTED", stepName: "executing_tools" },
    { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "search_regulations", toolDisplayName: "Regelgeving zoeken" },
  ]);
  await expect(regulation.locator("[data-activity=executing]")).toHaveText("voert uit");
  await expect(page.getByRole("status", { name: "Voortgang" })).toHaveText("Regelgeving zoeken...");
  await expect(hood.locator("li", { hasText: "Algemene Assistent" })).toContainText("inactief");

  // Broken: a delta for a message that never started, a result before the call ended.
  fake.send([
    { type: "TEXT_MESSAGE_CONTENT", messageId: "nooit", delta: "los" },
    { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "{}" },
  ]);
  const events = hood.getByRole("list", { name: "Ruwe eventlog" });
  await expect(events.locator("li", { hasText: "TEXT_MESSAGE_CONTENT" })).toContainText("which is not open");
  await expect(events.locator("li", { hasText: "TOOL_CALL_RESULT" })).toContainText("before its TOOL_CALL_END");
  await expect(hood).toContainText("2 waarschuwing(en) van de verifier");
  await page.screenshot({ path: "screenshots/ui-hood-warnings.png" });
});
