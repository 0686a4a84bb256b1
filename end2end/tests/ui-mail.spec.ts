// The report card's mail line against the real binary and a real SMTP server (aiosmtpd from the
// tests' venv, scripts/smtp_sink.py): an approved report says where it was sent; with the mail
// server down it says so, and "Opnieuw versturen" sends it once the server is back (issue 33).
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { startServer, type RunningServer } from "../support/binary";
import { connected, send } from "../support/ui";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const email = "inspecteur@nvwa.example";
const password = "correct horse battery staple";
const cache = process.env.XDG_CACHE_HOME ?? `${process.env.HOME}/.cache`;
const python = `${cache}/agora-hai/smtp-venv/bin/python`;
const sinkScript = join(__dirname, "..", "..", "scripts", "smtp_sink.py");

// Signed out, the page's first requests are refused (the browser logs those 401s).
test.use({ allowedConsoleErrors: [[/status of 401/], { scope: "test" }], locale: "nl-NL" });

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port;
      probe.close(() => resolve(port));
    });
  });
}

/** aiosmtpd on `port`, writing each message it receives into `dir` as N.json. */
async function startSink(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(python, [sinkScript, String(port), dir], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`aiosmtpd exited with ${code}`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
  });
  return child;
}

async function stopSink(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

function mails(dir: string): Array<{ rcpt_tos: string[]; subject: string; body: string; attachments: Array<{ filename: string; content_type: string }> }> {
  return readdirSync(dir)
    .filter((name) => /^\d+\.json$/.test(name))
    .sort((a, b) => parseInt(a) - parseInt(b))
    .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")));
}

async function signIn(page: Page, server: RunningServer) {
  await page.goto(`${server.url}/login`);
  await page.getByLabel("E-mailadres").fill(email);
  await page.getByLabel("Wachtwoord").fill(password);
  await page.getByRole("button", { name: "Inloggen" }).click();
  await connected(page);
}

/** Sends once the previous answer is done (nothing running, nothing held), so that each
 * message is answered in its own run and the waits below see this run's output. */
async function sendAfterAnswer(page: Page, text: string) {
  await expect(page.getByText("Wordt verstuurd na dit antwoord:")).toBeHidden();
  await expect(page.getByRole("button", { name: "Stop", exact: true })).toBeHidden();
  await send(page, text);
}

/** An inspection with one finding, its report approved; the card is the last one shown. */
async function approvedReport(page: Page, company: string, kvk: string, finding: string) {
  await sendAfterAnswer(page, `Start inspectie bij ${company}`);
  await expect(page.getByRole("log").getByText(kvk).first()).toBeVisible();
  await sendAfterAnswer(page, finding);
  await sendAfterAnswer(page, "Genereer het inspectierapport zonder vragen");
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`${company} (KVK ${kvk})`);
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("link", { name: /Download PDF/ }).last()).toBeVisible();
}

test("an approved report is mailed with its PDF and JSON; with the mail server down it says so, and sending again works", async ({ page }) => {
  test.setTimeout(120_000);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "agora-smtp-"));
  let sink: ChildProcess | null = await startSink(port, dir);
  const server = await startServer([
    "--auth", "users", "--admin-email", email, "--admin-password", password,
    "--smtp-url", `smtp://127.0.0.1:${port}?tls=none`, "--report-mail-from", "AGORA HAI <hai@nvwa.example>",
  ]);
  try {
    await signIn(page, server);
    await approvedReport(page, "Trattoria Finta Fiore", "99990001", "Bevinding: rauwe vis naast groenten bewaard op 12 °C");
    const line = page.getByRole("status").filter({ hasText: /Verzonden aan|Mail mislukt|Wordt verzonden/ });
    await expect(line.last()).toHaveText(new RegExp(`^Verzonden aan ${email} \\(\\d{2}-\\d{2}-\\d{4} \\d{2}:\\d{2} UTC\\)$`));
    await page.screenshot({ path: "screenshots/ui-mail-sent.png" });
    const sent = mails(dir);
    expect(sent).toHaveLength(1);
    expect(sent[0].rcpt_tos).toEqual([email]);
    expect(sent[0].subject).toContain("Trattoria Finta Fiore");
    expect(sent[0].body).toContain("Overtredingen: 1");
    expect(sent[0].attachments.map((a) => a.content_type).sort()).toEqual(["application/json", "application/pdf"]);

    // The mail server goes away: the next report is stored and the card says the mail failed.
    await stopSink(sink);
    sink = null;
    await approvedReport(page, "Slagerij Verzinsel", "99990004", "Bevinding: gehakt in de toonbank op 9 °C");
    const failed = page.getByRole("status").filter({ hasText: /Mail mislukt/ });
    await expect(failed).toContainText("Mail mislukt: de mailserver is niet bereikbaar");
    const again = failed.getByRole("button", { name: "Opnieuw versturen" });
    await expect(again).toBeVisible();
    await page.screenshot({ path: "screenshots/ui-mail-failed.png" });

    // Back up, sent again from the card: the same report arrives, and the line says so.
    // (A new sink numbers its messages from 1 again: it writes into a directory of its own.)
    const againDir = mkdtempSync(join(tmpdir(), "agora-smtp-"));
    sink = await startSink(port, againDir);
    await again.click();
    await expect(page.getByRole("status").filter({ hasText: /Verzonden aan/ })).toHaveCount(2);
    await expect(again).toHaveCount(0);
    const resent = mails(againDir);
    expect(resent).toHaveLength(1);
    expect(resent[0].subject).toContain("Slagerij Verzinsel");
    // Only its own finding: the first company's stayed with the first report.
    expect(resent[0].body).toContain("Overtredingen: 1");
    expect(resent[0].attachments).toHaveLength(2);
    rmSync(againDir, { recursive: true, force: true });
  } finally {
    if (sink) await stopSink(sink);
    await server.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});
