// Verification before the report, in the browser: asked for the report, the agent asks what
// the form still lacks with quick answers as buttons; the picked answers go as one message,
// the approval dialog shows the form's summary (no raw JSON) and the report card follows.
// Dutch and English, at desktop (1440) and tablet (820) width; screenshots of each screen.
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected, dutchAgain, hydrated } from "../support/ui";

type Lang = "nl" | "en";

const words = {
  nl: {
    message: "Bericht",
    start: "Start inspectie bij Trattoria Finta Fiore",
    finding: "De saladette met gesneden tomaten en mozzarella staat op 11 °C.",
    report: "Maak het rapport op",
    answers: ["Ja, schriftelijk in orde", "Geen ongedierte aangetroffen", "Horeca"],
    send: "Antwoorden versturen",
    dialog: "Goedkeuring gevraagd",
    approve: "Goedkeuren",
    form: "Formulier ingevuld",
  },
  en: {
    message: "Message",
    start: "I'm at Trattoria Finta Fiore for a regular inspection.",
    finding: "The salad fridge with sliced tomatoes is at 11 °C.",
    report: "Generate the report",
    answers: ["Yes, written information in order", "No pests found", "Horeca"],
    send: "Send answers",
    dialog: "Approval requested",
    approve: "Approve",
    form: "Form completed",
  },
};

async function say(page: Page, lang: Lang, text: string) {
  const box = page.getByLabel(words[lang].message);
  await box.fill(text);
  await box.press("Enter");
}

// The English runs switch the page with its button, which stores the preference for the
// development user every spec shares: put Dutch back, whatever happened in the test.
test.afterEach(async ({ page }) => dutchAgain(page));

for (const lang of ["nl", "en"] as const) {
  for (const width of [1440, 820]) {
    test(`questions with quick answers, then the form's summary to approve (${lang}, ${width} px)`, async ({ page }) => {
      const w = words[lang];
      await page.setViewportSize({ width, height: 1000 });
      await page.goto("/");
      if (lang === "en") {
        await hydrated(page);
        await page.getByRole("button", { name: "EN", exact: true }).click();
        await expect(page.getByRole("status", { name: "Connection status" })).toHaveText("connected");
      } else {
        await connected(page);
      }
      await say(page, lang, w.start);
      await expect(page.getByRole("log").getByText("Finta Fiore").first()).toBeVisible();
      await say(page, lang, w.finding);
      await expect(page.getByRole("log").getByText(/852\/2004|Hygiënecode|°C/).first()).toBeVisible();
      await say(page, lang, w.report);

      const quick = page.getByTestId("quick-answers");
      await expect(quick).toBeVisible();
      await expect(quick.getByRole("listitem")).toHaveCount(3);
      await expect(page.getByRole("dialog")).toHaveCount(0);
      await page.screenshot({ path: `screenshots/verification-questions-${lang}-${width}.png` });

      for (const answer of w.answers) {
        await quick.getByRole("button", { name: answer, exact: true }).click();
        await expect(quick.getByRole("button", { name: answer, exact: true })).toHaveAttribute("aria-pressed", "true");
      }
      await quick.getByRole("button", { name: w.send }).click();
      await expect(quick).toBeHidden();

      const dialog = page.getByRole("dialog", { name: w.dialog });
      await expect(dialog).toBeVisible();
      const summary = dialog.getByTestId("form-summary");
      await expect(summary).toContainText(w.form);
      // The form's official terms in Dutch; their English words in English (the JSON keeps the terms).
      await expect(summary).toContainText(lang === "nl" ? "Allergeneninformatie" : "Allergen information");
      await expect(summary).toContainText(lang === "nl" ? "Niet beoordeeld" : "Not assessed");
      if (lang === "en") await expect(summary).not.toContainText("Niet beoordeeld");
      await expect(dialog).toContainText("Trattoria Finta Fiore (KVK");
      // No raw JSON in sight: it is folded under the technical details.
      await expect(dialog.locator("pre")).toBeHidden();
      // Nothing is cut at the right edge.
      const box = await dialog.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await page.screenshot({ path: `screenshots/verification-approval-${lang}-${width}.png` });

      await dialog.getByRole("button", { name: w.approve }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByRole("link", { name: /Download PDF/ })).toBeVisible();
      // The report card and the agent's answer word the form's sections in the page's language.
      const sectionWords = lang === "nl" ? "Hygiëne algemeen" : "General hygiene";
      await expect(page.getByRole("log").getByText(sectionWords).first()).toBeVisible();
      await page.screenshot({ path: `screenshots/verification-report-${lang}-${width}.png`, fullPage: true });
    });
  }
}
