// Answers read aloud (issue 38): with the header's speaker on, the spoken text the server sends
// (`agora:spoken_text_content`, a sentence each, never the Markdown) reaches the browser's
// `speechSynthesis` sentence by sentence, in order, in the page's language; typing, opening
// another thread or switching the speaker off stops it. `speechSynthesis` is replaced by a spy
// before the page loads: what the page asks of it is what is tested (headless Chromium has no
// voices to listen to).
import type { Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected, send } from "../support/ui";

type Said = { text?: string; lang?: string; cancel?: true };

async function spyOnSpeech(page: Page) {
  await page.addInitScript(() => {
    const said: { text?: string; lang?: string; cancel?: true }[] = [];
    (window as unknown as { said: typeof said }).said = said;
    // On the prototype: however the page's bindings reach the methods, they reach these.
    SpeechSynthesis.prototype.speak = (utterance: SpeechSynthesisUtterance) => {
      said.push({ text: utterance.text, lang: utterance.lang });
    };
    SpeechSynthesis.prototype.cancel = () => {
      said.push({ cancel: true });
    };
  });
}

const said = (page: Page) => page.evaluate(() => (window as unknown as { said: Said[] }).said.slice());
const spokenTexts = async (page: Page) => (await said(page)).filter((s) => s.text !== undefined);

/** The spoken text of the answers, as the server sends it, sentence by sentence; and how many
 *  runs have finished. */
function listenToSpokenText(page: Page) {
  const sentences: string[] = [];
  let finished = 0;
  page.on("websocket", (socket) =>
    socket.on("framereceived", (frame) => {
      if (typeof frame.payload !== "string") return;
      const event = JSON.parse(frame.payload);
      if (event.type === "RUN_FINISHED") finished += 1;
      if (event.type === "CUSTOM" && event.name === "agora:spoken_text_content") sentences.push(event.value.delta.trim());
    }),
  );
  return { sentences, finished: () => finished };
}

/** The development user is shared by every spec: its default back after each test here,
 *  whatever happened. */
test.afterEach(async ({ page }) => summarizeAgain(page));

async function summarizeAgain(page: Page) {
  const origin = new URL(page.url()).origin;
  const response = await page.request.put("/users/me/preferences", {
    data: { spoken_text_type: "summarize" },
    headers: { Origin: origin },
  });
  expect(response.ok()).toBe(true);
}

test("answers are read aloud sentence by sentence in order, and typing stops them", async ({ page }) => {
  await spyOnSpeech(page);
  const spoken = listenToSpokenText(page);
  const offered = page.waitForResponse((r) => r.url().endsWith("/transcriptions") && r.request().method() === "GET");
  await page.goto(`/t/speech-${Date.now()}`);
  await connected(page);
  // This server has no transcription API: no microphone is offered.
  expect(await (await offered).json()).toMatchObject({ available: false });
  await expect(page.getByRole("button", { name: "Inspreken (ingedrukt houden)" })).toBeHidden();
  const speaker = page.getByRole("button", { name: "Voorlezen" });
  await expect(speaker).toHaveAttribute("aria-pressed", "false");

  // Off: the server speaks, the page does not.
  await send(page, "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.");
  await expect.poll(spoken.finished, { timeout: 30_000 }).toBeGreaterThan(0);
  expect(spoken.sentences.length).toBeGreaterThan(0);
  expect(await spokenTexts(page)).toEqual([]);

  await speaker.click();
  await expect(speaker).toHaveAttribute("aria-pressed", "true");
  // The whole answer read, not its first sentences: several sentences to come in order.
  await page.getByLabel("Wat wordt voorgelezen").selectOption("dictate");
  await expect.poll(async () => (await (await page.request.get("/users/me")).json()).preferences.spoken_text_type).toBe("dictate");
  const before = spoken.sentences.length;
  const finishedBefore = spoken.finished();
  await send(page, "Wat zijn de regels voor het bewaren van rauwe kip in de koeling?");
  await expect.poll(spoken.finished, { timeout: 30_000 }).toBeGreaterThan(finishedBefore);
  const expected = spoken.sentences.slice(before);
  expect(expected.length).toBeGreaterThan(1);
  // Every sentence, in the order it came, in the page's language; no Markdown read out.
  await expect.poll(async () => (await spokenTexts(page)).map((s) => s.text)).toEqual(expected);
  for (const s of await spokenTexts(page)) {
    expect(s.lang).toBe("nl-NL");
    expect(s.text).not.toMatch(/\*\*|^#|\|/);
  }

  // The inspector types: what is being said stops.
  const cancels = async () => (await said(page)).filter((s) => s.cancel).length;
  const cancelledBefore = await cancels();
  await page.getByLabel("Bericht").pressSequentially("De");
  expect(await cancels()).toBeGreaterThan(cancelledBefore);
  expect((await said(page)).at(-1)).toEqual({ cancel: true });

  // Another thread: stops too.
  const cancelledTyping = await cancels();
  await page.getByRole("navigation", { name: "Inspecties" }).getByRole("button", { name: "Nieuwe inspectie" }).click();
  await expect.poll(cancels).toBeGreaterThan(cancelledTyping);
});

test("the speaker is remembered for the user, and how much is read is a preference", async ({ page }) => {
  await spyOnSpeech(page);
  await page.goto(`/t/speech-prefs-${Date.now()}`);
  await connected(page);
  const speaker = page.getByRole("button", { name: "Voorlezen" });
  const kind = page.getByLabel("Wat wordt voorgelezen");
  await expect(kind).toBeHidden();
  await speaker.click();
  await expect(kind).toBeVisible();
  await expect(kind).toHaveValue("summarize");

  // Stored before the reload reads it back.
  const saved = page.waitForResponse((r) => r.url().endsWith("/users/me/preferences") && r.request().method() === "PUT");
  await kind.selectOption("dictate");
  expect((await saved).request().postDataJSON()).toEqual({ spoken_text_type: "dictate" });
  expect((await saved).ok()).toBe(true);
  await page.reload();
  await connected(page);
  await expect(speaker).toHaveAttribute("aria-pressed", "true");
  await expect(kind).toHaveValue("dictate");
  const me = await (await page.request.get("/users/me")).json();
  expect(me.preferences.spoken_text_type).toBe("dictate");

  // Off again: it stops speaking, and stays off after a reload.
  await speaker.click();
  await expect(speaker).toHaveAttribute("aria-pressed", "false");
  expect((await said(page)).at(-1)).toEqual({ cancel: true });
  await page.reload();
  await connected(page);
  await expect(speaker).toHaveAttribute("aria-pressed", "false");
});
