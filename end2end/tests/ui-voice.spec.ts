// Push-to-talk (issue 38) with Chromium's fake microphone: it "hears" a WAV file that espeak-ng
// speaks at set-up (a Dutch sentence, then silence), the page records it with MediaRecorder while
// the button is held and sends it to the server, which has the real transcription server of the
// tests (scripts/stt_server.py: faster-whisper on Whisper base, from PyPI) behind
// --stt-base-url. Press, speak, release: the text is in the composer to be checked and sent; in
// listen mode it is sent as it came. With the transcription server down the page says so and
// keeps the recording, which goes once it is back. Screenshots at tablet width, light and dark.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected } from "../support/ui";
import { freePort, startServer, type RunningServer } from "../support/binary";
import { chromiumArgs } from "../playwright.config";

const sentence = "De kip in de koeling is niet afgedekt.";
/** What matters for the finding, of what the composer holds: a synthetic voice through a small
 *  model does not come back letter for letter (README, Hands free; "afgedekt" has come back as
 *  "afgelekend" and "afgewekt", "koeling" as "tolling" and "cooling"). */
function understood(text: string) {
  const heard = text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return { kip: heard.includes("kip"), niet: heard.includes("niet"), afgedekt: heard.some((w) => w.startsWith("afge")) };
}
const allUnderstood = { kip: true, niet: true, afgedekt: true };

/** `seconds` of silence after what espeak-ng said (a WAV's data chunk is the last one it writes):
 *  the fake microphone plays the file once, and the recording may run past the sentence. */
function withSilence(wav: Buffer, seconds: number): { wav: Buffer; spoken: number } {
  const rate = wav.readUInt32LE(24);
  const bytesPerSecond = wav.readUInt32LE(28);
  let offset = 12;
  while (wav.toString("ascii", offset, offset + 4) !== "data") offset += 8 + wav.readUInt32LE(offset + 4);
  const dataSize = wav.readUInt32LE(offset + 4);
  const silence = Buffer.alloc(bytesPerSecond * seconds);
  const out = Buffer.concat([wav.subarray(0, offset + 8 + dataSize), silence]);
  out.writeUInt32LE(out.length - 8, 4);
  out.writeUInt32LE(dataSize + silence.length, offset + 4);
  expect(rate).toBeGreaterThan(0);
  return { wav: out, spoken: dataSize / bytesPerSecond };
}

const fixtureDir = mkdtempSync(join(tmpdir(), "agora-voice-e2e-"));
const fixture = join(fixtureDir, "said.wav");
execFileSync("espeak-ng", ["-v", "nl", "-s", "140", "-w", fixture, sentence]);
const { wav, spoken: spokenSeconds } = withSilence(readFileSync(fixture), 3);
writeFileSync(fixture, wav);

test.use({
  launchOptions: {
    executablePath: "/usr/bin/chromium",
    args: [
      ...chromiumArgs,
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      // Played once from the start of each recording, not looped.
      `--use-file-for-fake-audio-capture=${fixture}%noloop`,
    ],
  },
});

const cache = join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "", ".cache"), "agora-hai");

/** The transcription server on `port`, as the integration tests run it (it exits when its
 *  standard input closes). */
class Whisper {
  private process: ChildProcess | null = null;
  constructor(readonly port: number) {}

  async up() {
    if (this.process) return;
    const python = join(cache, "stt-venv/bin/python");
    const model = join(cache, "models/whisper-base");
    expect(
      existsSync(python) && existsSync(join(model, "model.bin")),
      "the transcription server is not installed: run `scripts/setup.sh test` (or `make test`)",
    ).toBe(true);
    const child = spawn(python, [resolve(__dirname, "../../scripts/stt_server.py"), model, String(this.port)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.process = child;
    await new Promise<void>((ready, fail) => {
      let said = "";
      child.stdout!.on("data", (chunk) => {
        said += chunk;
        if (said.includes("listening http://")) ready();
      });
      child.once("exit", (code) => fail(new Error(`the transcription server exited (${code}): ${said}`)));
    });
  }

  async down() {
    const child = this.process;
    if (!child) return;
    this.process = null;
    await new Promise<void>((done) => {
      if (child.exitCode !== null) return done();
      child.once("exit", () => done());
      child.stdin!.end();
      child.kill("SIGTERM");
    });
  }
}

let server: RunningServer;
let whisper: Whisper;

test.beforeAll(async () => {
  whisper = new Whisper(await freePort());
  server = await startServer(["--auth", "dev", "--stt-base-url", `http://127.0.0.1:${whisper.port}/v1`]);
});

test.afterAll(async () => {
  await whisper?.down();
  await server?.dispose();
});

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 820, height: 1180 });
});

async function open(page: Page, name: string) {
  const offered = page.waitForResponse((r) => r.url().endsWith("/transcriptions") && r.request().method() === "GET");
  await page.goto(`${server.url}/t/${name}-${Date.now()}`);
  await connected(page);
  expect(await (await offered).json()).toMatchObject({ available: true });
  const mic = page.getByRole("button", { name: "Inspreken (ingedrukt houden)" });
  await expect(mic).toBeVisible();
  return mic;
}

/** Holds the button down until the sentence has been played into it (the page counts the
 *  seconds), then lets go. `screenshot`: the composer while it records. */
async function speak(page: Page, screenshot?: (page: Page) => Promise<void>) {
  const mic = page.getByRole("button", { name: "Inspreken (ingedrukt houden)" });
  await mic.hover();
  await page.mouse.down();
  await expect(mic).toHaveAttribute("aria-pressed", "true");
  const status = page.getByTestId("mic-status");
  await expect(status).toContainText(/Opname \d:\d\d — loslaten om te versturen/);
  const enough = Math.ceil(spokenSeconds) + 1;
  await expect(status).toContainText(`0:${String(enough).padStart(2, "0")}`, { timeout: (enough + 5) * 1000 });
  if (screenshot) await screenshot(page);
  await page.mouse.up();
  await expect(mic).toHaveAttribute("aria-pressed", "false");
}

test.describe("the transcription server down", () => {
  // The page's request answered 502 on purpose: the browser logs it.
  test.use({ allowedConsoleErrors: [[/status of 502/], { scope: "test" }] });

  test("a clear message, and the recording kept is sent again once it is back", async ({ page }) => {
    await whisper.down();
    await open(page, "voice-down");
    await speak(page);
    const alert = page.getByRole("alert").filter({ hasText: "spraakherkenning" });
    await expect(alert).toContainText("De spraakherkenning is niet bereikbaar. De opname is bewaard: probeer het opnieuw.", {
      timeout: 30_000,
    });
    await expect(page.getByLabel("Bericht")).toHaveValue("");
    await page.screenshot({ path: "screenshots/voice-down-820.png" });

    await whisper.up();
    await alert.getByRole("button", { name: "Opnieuw proberen" }).click();
    await expect(alert).toBeHidden({ timeout: 60_000 });
    await expect.poll(async () => understood(await page.getByLabel("Bericht").inputValue()), { timeout: 60_000 }).toEqual(allUnderstood);
  });
});

for (const scheme of ["light", "dark"] as const) {
  test(`press, speak, release: the text is in the composer to be checked and sent (${scheme})`, async ({ page }) => {
    await whisper.up();
    await page.emulateMedia({ colorScheme: scheme });
    await open(page, `voice-${scheme}`);
    const box = page.getByLabel("Bericht");
    await box.fill("Koelcel:");
    await speak(page, (page) => page.screenshot({ path: `screenshots/voice-recording-820-${scheme}.png` }));
    // Joined to what was typed, not sent: the inspector checks it first.
    await expect.poll(async () => understood(await box.inputValue()), { timeout: 60_000 }).toEqual(allUnderstood);
    expect(await box.inputValue()).toMatch(/^Koelcel: \S/);
    await expect(page.getByRole("log").locator("article")).toHaveCount(0);
    await page.screenshot({ path: `screenshots/voice-heard-820-${scheme}.png` });
    await box.press("Enter");
    await expect(page.getByRole("log").getByText(/^Koelcel: /)).toBeVisible();
  });
}

test("the keyboard: Space starts a recording and the next Space ends it", async ({ page }) => {
  await whisper.up();
  const mic = await open(page, "voice-keys");
  await mic.focus();
  await page.keyboard.press("Space");
  await expect(mic).toHaveAttribute("aria-pressed", "true");
  const enough = Math.ceil(spokenSeconds) + 1;
  await expect(page.getByTestId("mic-status")).toContainText(`0:${String(enough).padStart(2, "0")}`, {
    timeout: (enough + 5) * 1000,
  });
  await page.keyboard.press("Space");
  await expect(mic).toHaveAttribute("aria-pressed", "false");
  await expect.poll(async () => understood(await page.getByLabel("Bericht").inputValue()), { timeout: 60_000 }).toEqual(allUnderstood);
});

// A page of its own: the fake microphone plays its file once per page.
test("the keyboard: Enter held down (it repeats) starts one recording, the next Enter ends it", async ({ page }) => {
  await whisper.up();
  const mic = await open(page, "voice-enter");
  const enough = Math.ceil(spokenSeconds) + 1;
  await mic.focus();
  await page.keyboard.down("Enter");
  await page.keyboard.down("Enter"); // what a held key repeats
  await page.keyboard.up("Enter");
  await expect(mic).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("mic-status")).toContainText(`0:${String(enough).padStart(2, "0")}`, {
    timeout: (enough + 5) * 1000,
  });
  await page.keyboard.press("Enter");
  await expect(mic).toHaveAttribute("aria-pressed", "false");
  await expect.poll(async () => understood(await page.getByLabel("Bericht").inputValue()), { timeout: 60_000 }).toEqual(allUnderstood);
});

test("in listen mode what is said is sent as it came, and recorded", async ({ page }) => {
  await whisper.up();
  await open(page, "voice-listen");
  const listen = page.getByRole("button", { name: "Luistermodus", exact: true });
  await listen.click();
  await expect(listen).toHaveAttribute("aria-pressed", "true");
  const log = page.getByRole("log");
  await expect(log.getByText(/Luistermodus aan/)).toBeVisible({ timeout: 30_000 });
  await speak(page);
  await expect(log.getByText(/^✓ \d+$/)).toHaveCount(1, { timeout: 60_000 });
  // The inspector's message, as it was heard (the sentence's subject, at least).
  await expect(log.locator("article").filter({ has: page.getByRole("heading", { name: "U" }) }).filter({ hasText: /\bkip\b/i })).toHaveCount(1);
  await expect(page.getByLabel("Bericht")).toHaveValue("");
});
