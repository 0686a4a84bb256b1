// The approval dialog: approve and reject by mouse and by keyboard against the real binary
// (the report needs approval; approved, its PDF downloads), focus kept inside the dialog, and
// several pending approvals stepped through with a scripted server.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { readFileSync } from "node:fs";
import { approvalRequest, fakeAgora, runStart } from "../bench/fake-agora";
import { connected, send } from "../support/ui";

/** An inspection with a finding, then the request for the report: the dialog opens. */
async function askForReport(page: Page) {
  await page.goto("/");
  await connected(page);
  await send(page, "Start inspectie bij Trattoria Finta Fiore");
  await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await send(page, "Bevinding: rauwe vis naast groenten bewaard op 12 °C");
  await expect(page.getByRole("log").getByText("Regelgeving Specialist")).toBeVisible();
  await send(page, "Genereer het inspectierapport zonder vragen");
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  await expect(dialog).toBeVisible();
  return dialog;
}

test("approved by mouse, the run continues and the report's PDF downloads", async ({ page }) => {
  const dialog = await askForReport(page);
  await expect(dialog).toContainText("Inspectierapport genereren");
  await expect(dialog).toContainText("generate_final_report");
  // What the tool does, in the inspector's language (not the model's English description).
  await expect(dialog).toContainText("Maakt het officiële inspectierapport (PDF)");
  await expect(dialog.locator("[data-risk=critical]")).toHaveText(/kritiek/i);
  // The form's summary, not raw JSON: company, each section's status, completion.
  await expect(dialog).toContainText("Trattoria Finta Fiore (KVK 99990001)");
  await expect(dialog.getByTestId("form-summary")).toContainText("Hygiëne algemeen");
  await expect(dialog.getByTestId("form-summary")).toContainText("Formulier ingevuld");
  await expect(dialog).toContainText("Rapportage Specialist wil");
  await expect(page.getByRole("status", { name: "Voortgang" })).toHaveText("Wacht op uw goedkeuring...");
  await page.screenshot({ path: "screenshots/ui-approval-dialog.png" });

  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("button", { name: "Inspectierapport genereren, klaar" })).toBeVisible();
  const link = page.getByRole("link", { name: /Download PDF/ });
  await expect(link).toBeVisible();
  await expect(page.getByText("Inspectierapport klaar")).toBeVisible();
  await page.screenshot({ path: "screenshots/ui-report-card.png" });

  const download = page.waitForEvent("download");
  await link.click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^HAP-.*\.pdf$/);
  const bytes = readFileSync(await file.path());
  expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
});

test("rejected with Esc, with feedback: the call shows as rejected, with the feedback", async ({ page }) => {
  const dialog = await askForReport(page);
  const feedback = dialog.getByLabel("Toelichting (optioneel)");
  await expect(feedback).toBeFocused();
  await feedback.fill("Eerst de herinspectie afwachten");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  const chip = page.getByRole("button", { name: "Inspectierapport genereren, afgewezen" });
  await expect(chip).toBeVisible();
  await chip.click();
  await expect(page.getByRole("region", { name: "Inspectierapport genereren" })).toContainText("Eerst de herinspectie afwachten");
  await expect(page.getByRole("link", { name: /Download PDF/ })).toHaveCount(0);
  await page.screenshot({ path: "screenshots/ui-approval-rejected.png" });
});

// Issue 34: what goes into the report can be corrected before it is approved. One finding's
// words and severity are changed, another left out (and put back, and left out again); the
// button says the approval is one with edits; the report has exactly that.
for (const width of [1440, 390]) {
  test(`findings corrected and left out in the dialog reach the report (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/");
    await connected(page);
    await send(page, "Start inspectie bij Trattoria Finta Fiore");
    await expect(page.getByRole("log").getByText("Bedrijfsinformatie Specialist")).toBeVisible();
    await send(page, "Bevinding: rauwe vis naast groenten bewaard op 12 °C");
    await expect(page.getByRole("log").getByText("Bevinding 1 vastgelegd")).toBeVisible();
    await send(page, "Bevinding: geen zeep bij de handenwasbak in de keuken");
    await expect(page.getByRole("log").getByText("Bevinding 2 vastgelegd")).toBeVisible();
    await send(page, "Genereer het inspectierapport zonder vragen");
    const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
    await expect(dialog).toBeVisible();
    const findings = dialog.getByTestId("findings");
    await expect(findings.getByRole("listitem")).toHaveCount(2);
    await expect(dialog.getByRole("button", { name: "Goedkeuren", exact: true })).toBeVisible();

    await findings.getByRole("button", { name: "Bevinding 1 wijzigen" }).click();
    const words = findings.getByLabel("Tekst van bevinding 1");
    await expect(words).toBeVisible();
    await words.fill("Rauwe vis boven de groenten in de koelcel, 12 °C");
    await findings.getByLabel("Ernst van bevinding 1").selectOption("matig");
    await findings.getByRole("button", { name: "Wijziging van bevinding 1 klaar" }).click();
    await expect(findings).toContainText("1. Rauwe vis boven de groenten in de koelcel, 12 °C (matig)");
    await findings.getByRole("button", { name: "Bevinding 2 weglaten" }).click();
    await findings.getByRole("button", { name: "Bevinding 2 terugzetten" }).click();
    await findings.getByRole("button", { name: "Bevinding 2 weglaten" }).click();
    await expect(findings.getByRole("listitem").nth(1).locator(".line-through")).toBeVisible();
    const approve = dialog.getByRole("button", { name: "Goedkeuren met wijzigingen" });
    await expect(approve).toBeVisible();
    // Nothing is cut at the right edge, on a phone too.
    const box = await dialog.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `screenshots/ui-approval-edits-${width}.png` });

    await approve.click();
    await expect(dialog).toBeHidden();
    const json = page.getByRole("link", { name: "JSON", exact: true });
    await expect(json).toBeVisible();
    const report = await (await page.request.get((await json.getAttribute("href"))!)).json();
    const text = JSON.stringify(report);
    expect(report.all_violations).toHaveLength(1);
    expect(text).toContain("Rauwe vis boven de groenten in de koelcel");
    expect(text).not.toContain("zeep");
  });
}

test("approved with Ctrl+Enter; Tab and Shift+Tab stay inside the dialog", async ({ page }) => {
  const dialog = await askForReport(page);
  const inside = () => page.evaluate(() => !!document.activeElement?.closest("[role=dialog]"));
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    expect(await inside()).toBe(true);
  }
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Shift+Tab");
    expect(await inside()).toBe(true);
  }
  // The page behind cannot be reached.
  await expect(page.locator("div[inert]")).toHaveCount(1);
  await dialog.getByLabel("Toelichting (optioneel)").focus();
  await page.keyboard.press("Control+Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("link", { name: /Download PDF/ })).toBeVisible();
  await expect(page.getByLabel("Bericht")).toBeFocused();
});

test("several approvals are stepped through, 1 / n, with the risk colours", async ({ page }) => {
  const fake = await fakeAgora(page, (_text, threadId) => [
    ...runStart(threadId, "run-1", "reporting-agent"),
    { type: "STEP_STARTED", stepName: "executing_tools" },
    approvalRequest("a-low", "low", "search_regulations"),
    approvalRequest("a-medium", "medium", "get_company_info"),
    approvalRequest("a-high", "high", "check_company_exists"),
    approvalRequest("a-critical", "critical", "generate_final_report"),
  ]);
  await page.goto("/");
  await connected(page);
  await send(page, "Vier goedkeuringen graag");
  const dialog = page.getByRole("dialog");
  const position = dialog.getByTestId("approval-position");
  const colours: Record<string, string> = {};
  for (const [at, risk, tool] of [
    [1, "low", "Regelgeving zoeken"],
    [2, "medium", "Bedrijfsgegevens ophalen"],
    [3, "high", "Bedrijf controleren"],
    [4, "critical", "Inspectierapport genereren"],
  ] as const) {
    await expect(position).toContainText(`${at} / 4`);
    await expect(dialog).toContainText(tool);
    const badge = dialog.locator(`[data-risk=${risk}]`);
    await expect(badge).toBeVisible();
    colours[risk] = await badge.evaluate((b) => getComputedStyle(b).backgroundColor);
    await page.screenshot({ path: `screenshots/ui-approval-risk-${risk}.png` });
    if (at < 4) await dialog.getByRole("button", { name: "Volgende" }).click();
  }
  // Four levels, four colours.
  expect(new Set(Object.values(colours)).size).toBe(4);
  await expect(dialog.getByRole("button", { name: "Volgende" })).toBeDisabled();

  // Approve the critical one by keyboard, reject the low one by mouse, and so on.
  await page.keyboard.press("Control+Enter");
  await expect(position).toContainText("3 / 3");
  await dialog.getByRole("button", { name: "Vorige" }).click();
  await dialog.getByRole("button", { name: "Vorige" }).click();
  await expect(position).toContainText("1 / 3");
  await dialog.getByLabel("Toelichting (optioneel)").fill("niet nodig");
  await dialog.getByRole("button", { name: "Afwijzen" }).click();
  await expect(position).toContainText("1 / 2");
  await page.keyboard.press("Escape");
  await expect(dialog.getByTestId("approval-position")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  await expect(dialog).toBeHidden();

  const answers = fake.received
    .filter((f) => f.name === "agora:tool_approval_response")
    .map((f) => [f.value.approvalId, f.value.approved, f.value.feedback ?? null]);
  expect(answers).toEqual([
    ["a-critical", true, null],
    ["a-low", false, "niet nodig"],
    ["a-medium", false, null],
    ["a-high", true, null],
  ]);
});

test("a tool the page does not know is described in the server's words", async ({ page }) => {
  await fakeAgora(page, (_text, threadId) => [
    ...runStart(threadId, "run-u"),
    approvalRequest("a-unknown", "high", "delete_records"),
  ]);
  await page.goto("/");
  await connected(page);
  await send(page, "Verwijder de oude registraties");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("delete_records");
  await expect(dialog).toContainText("Beschrijving van delete_records");
});
