// The approval dialog: approve and reject by mouse and by keyboard against the real binary
// (the report needs approval; approved, its PDF downloads), focus kept inside the dialog, and
// several pending approvals stepped through with a scripted server.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { readFileSync } from "node:fs";
import { approvalRequest, fakeAgora, runStart } from "../bench/fake-agora";
import { connected, dutchAgain, send } from "../support/ui";

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
// words and severity are changed, another left out (and put back, and left out again); Esc in
// a finding's box ends the correction and does not reject the report; the button says the
// approval is one with edits; the report has exactly that. Dutch and English, at desktop,
// tablet and phone width (nothing cut at the right edge).
const editWords = {
  nl: {
    start: "Start inspectie bij Trattoria Finta Fiore",
    findings: [
      ["Bevinding: rauwe vis naast groenten bewaard op 12 °C", "Bevinding 1 vastgelegd"],
      ["Bevinding: geen zeep bij de handenwasbak in de keuken", "Bevinding 2 vastgelegd"],
    ],
    report: "Genereer het inspectierapport zonder vragen",
    dialog: "Goedkeuring gevraagd",
    approve: "Goedkeuren",
    approveEdited: "Goedkeuren met wijzigingen",
    edit: (n: number) => `Bevinding ${n} wijzigen`,
    words: (n: number) => `Tekst van bevinding ${n}`,
    severity: (n: number) => `Ernst van bevinding ${n}`,
    done: (n: number) => `Wijziging van bevinding ${n} klaar`,
    leaveOut: (n: number) => `Bevinding ${n} weglaten`,
    restore: (n: number) => `Bevinding ${n} terugzetten`,
    corrected: "Rauwe vis boven de groenten in de koelcel, 12 °C",
    serious: "(ernstig)",
    violations: "Overtredingen",
    refilled: "Zonder de weggelaten bevindingen",
  },
  en: {
    start: "I'm at Trattoria Finta Fiore for a regular inspection.",
    findings: [
      ["Finding: raw fish stored next to vegetables at 12 °C", "Finding 1 recorded"],
      ["Finding: no soap at the hand wash basin in the kitchen", "Finding 2 recorded"],
    ],
    report: "Generate the report without questions",
    dialog: "Approval requested",
    approve: "Approve",
    approveEdited: "Approve with edits",
    edit: (n: number) => `Edit finding ${n}`,
    words: (n: number) => `Text of finding ${n}`,
    severity: (n: number) => `Severity of finding ${n}`,
    done: (n: number) => `Done editing finding ${n}`,
    leaveOut: (n: number) => `Leave out finding ${n}`,
    restore: (n: number) => `Put finding ${n} back`,
    corrected: "Raw fish above the vegetables in the cold store, 12 °C",
    serious: "(serious)",
    violations: "Violations",
    refilled: "Without the findings left out",
  },
};

test.describe("approval with edits", () => {
  // The English runs store the language for the development user every spec shares: put
  // Dutch back, whatever happened in the test.
  test.afterEach(async ({ page }) => dutchAgain(page));

  for (const lang of ["nl", "en"] as const) {
    for (const width of [1440, 820, 390]) {
      test(`findings corrected and left out in the dialog reach the report (${lang}, ${width} px)`, async ({ page }) => {
        const w = editWords[lang];
        await page.setViewportSize({ width, height: 900 });
        await page.goto("/");
        await connected(page);
        if (lang === "en") {
          await page.getByRole("button", { name: "EN", exact: true }).click();
          await expect(page.getByRole("status", { name: "Connection status" })).toHaveText("connected");
        }
        const box = page.getByLabel(lang === "nl" ? "Bericht" : "Message");
        const say = async (text: string) => {
          await box.fill(text);
          await box.press("Enter");
        };
        await say(w.start);
        await expect(page.getByRole("log").getByText("Finta Fiore").first()).toBeVisible();
        for (const [finding, recorded] of w.findings) {
          await say(finding);
          await expect(page.getByRole("log").getByText(recorded)).toBeVisible();
        }
        await say(w.report);
        const dialog = page.getByRole("dialog", { name: w.dialog });
        await expect(dialog).toBeVisible();
        const findings = dialog.getByTestId("findings");
        await expect(findings.getByRole("listitem")).toHaveCount(2);
        // Each finding with the articles it cites, by citation and title: a wrong one is seen here.
        await expect(findings.getByRole("listitem").nth(1)).toContainText("852/2004");
        const summary = dialog.getByTestId("form-summary");
        await expect(summary).toContainText(`${w.violations}: 2`);
        await expect(summary).not.toContainText(w.refilled);
        await expect(dialog.getByRole("button", { name: w.approve, exact: true })).toBeVisible();

        await findings.getByRole("button", { name: w.edit(1) }).click();
        const words = findings.getByLabel(w.words(1));
        await expect(words).toBeVisible();
        await words.fill(w.corrected);
        // Said at once, while the box still has the focus.
        await expect(dialog.getByRole("button", { name: w.approveEdited })).toBeVisible();
        await expect(words).toBeFocused();
        await findings.getByLabel(w.severity(1)).selectOption("ernstig");
        await page.screenshot({ path: `screenshots/ui-approval-editing-${lang}-${width}.png` });
        // Esc ends the correction; the dialog stays (Esc elsewhere rejects).
        await words.focus();
        await page.keyboard.press("Escape");
        await expect(dialog).toBeVisible();
        await expect(words).toBeHidden();
        await expect(findings).toContainText(`1. ${w.corrected} ${w.serious}`);
        await findings.getByRole("button", { name: w.leaveOut(2) }).click();
        await findings.getByRole("button", { name: w.restore(2) }).click();
        await findings.getByRole("button", { name: w.leaveOut(2) }).click();
        await expect(findings.getByRole("listitem").nth(1).locator(".line-through")).toBeVisible();
        // The summary counts what will be reported, and says the sections are filled again.
        await expect(summary).toContainText(`${w.violations}: 1`);
        await expect(summary).toContainText(w.refilled);
        const approve = dialog.getByRole("button", { name: w.approveEdited });
        await expect(approve).toBeVisible();
        // Nothing is cut at the right edge, nor scrolls sideways, on a phone too.
        const box2 = await dialog.boundingBox();
        expect(box2!.x + box2!.width).toBeLessThanOrEqual(width);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await page.screenshot({ path: `screenshots/ui-approval-edits-${lang}-${width}.png` });

        await approve.click();
        await expect(dialog).toBeHidden();
        const json = page.getByRole("link", { name: "JSON", exact: true });
        await expect(json).toBeVisible();
        const report = await (await page.request.get((await json.getAttribute("href"))!)).json();
        const text = JSON.stringify(report);
        expect(report.all_violations).toHaveLength(1);
        expect(text).toContain(w.corrected);
        expect(text).not.toMatch(/zeep|soap/);
        // The conclusion counts the findings as approved, not as the agent proposed them.
        expect(report.additional_info.inspector_notes).toMatch(/1 bevinding vastgelegd|1 finding was recorded/);
      });
    }
  }
});

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
