// Evidence photos (issue 37) against the real binary: a photo taken through the composer's file
// input is shrunk in the browser, shown as a thumbnail that can be removed, sent with the
// message as an AG-UI image part, and shown in the conversation, also after a reload (then
// served by the server, to its owner).
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected, hydrated, send } from "../support/ui";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

const log = (page: Page) => page.getByRole("log");
const badge = (page: Page) => page.getByRole("status", { name: "Verbindingsstatus" });

/** `jpeg` with an EXIF block (APP1) whose DateTimeOriginal is `time` ("2026:11:27 10:32:05"), as
 *  a camera writes it: a first directory pointing at an Exif directory holding the tag. */
function withExifTime(jpeg: Buffer, time: string): Buffer {
  const tiff = Buffer.alloc(64);
  tiff.write("II", 0, "latin1");
  tiff.writeUInt16LE(42, 2);
  tiff.writeUInt32LE(8, 4);
  // IFD0 at 8: the Exif directory's pointer (0x8769) → 26.
  tiff.writeUInt16LE(1, 8);
  tiff.writeUInt16LE(0x8769, 10);
  tiff.writeUInt16LE(4, 12);
  tiff.writeUInt32LE(1, 14);
  tiff.writeUInt32LE(26, 18);
  tiff.writeUInt32LE(0, 22);
  // Exif IFD at 26: DateTimeOriginal (0x9003), ASCII, 20 bytes at 44.
  tiff.writeUInt16LE(1, 26);
  tiff.writeUInt16LE(0x9003, 28);
  tiff.writeUInt16LE(2, 30);
  tiff.writeUInt32LE(20, 32);
  tiff.writeUInt32LE(44, 36);
  tiff.writeUInt32LE(0, 40);
  tiff.write(time, 44, "latin1");
  const body = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), header, body, jpeg.subarray(2)]);
}

/** Screenshots at tablet (820 × 1180) and phone (390 × 844) width, light and dark, with
 *  `target` in view; the page is left light at tablet width. */
async function shots(page: Page, name: string, target?: import("@playwright/test").Locator) {
  for (const [width, height] of [
    [820, 1180],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    for (const dark of [false, true]) {
      await page.evaluate((d) => document.documentElement.classList.toggle("dark", d), dark);
      if (target) await target.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `screenshots/ui-photos-${name}-${dark ? "dark" : "light"}-${width}.png` });
    }
  }
  await page.evaluate(() => document.documentElement.classList.toggle("dark", false));
  await page.setViewportSize({ width: 820, height: 1180 });
}

/** How many messages' photos the page keeps in IndexedDB (the `hai` database's `photos`). */
async function photosInIndexedDb(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const open = indexedDB.open("hai", 1);
        open.onupgradeneeded = () => open.result.createObjectStore("photos");
        open.onerror = () => resolve(-1);
        open.onsuccess = () => {
          const db = open.result;
          const count = db.transaction("photos").objectStore("photos").count();
          count.onsuccess = () => {
            db.close();
            resolve(count.result);
          };
          count.onerror = () => resolve(-1);
        };
      }),
  );
}

/** A camera-sized photo (3000 × 2000 JPEG) drawn by the browser itself: no binary fixture. */
async function cameraPhoto(page: Page, hue: number): Promise<Buffer> {
  const dataUrl = await page.evaluate((hue) => {
    const canvas = document.createElement("canvas");
    canvas.width = 3000;
    canvas.height = 2000;
    const context = canvas.getContext("2d")!;
    const gradient = context.createLinearGradient(0, 0, 3000, 2000);
    gradient.addColorStop(0, `hsl(${hue}, 70%, 40%)`);
    gradient.addColorStop(1, `hsl(${hue + 90}, 70%, 70%)`);
    context.fillStyle = gradient;
    context.fillRect(0, 0, 3000, 2000);
    context.fillStyle = "#fff";
    context.font = "200px sans-serif";
    context.fillText("11 °C", 900, 1100);
    return canvas.toDataURL("image/jpeg", 0.9);
  }, hue);
  return Buffer.from(dataUrl.split(",")[1], "base64");
}

/** A JPEG's width and height, from its start-of-frame segment. */
function jpegSize(bytes: Buffer): { width: number; height: number } {
  let at = 2;
  while (at < bytes.length) {
    const marker = bytes[at + 1];
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc3) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  throw new Error("no frame header");
}

test("a photo taken in the composer is shrunk, shown, sent with the message and kept in the conversation", async ({ page }, testInfo) => {
  const sent: string[] = [];
  page.on("websocket", (ws) => ws.on("framesent", (frame) => sent.push(String(frame.payload))));
  await page.goto("/");
  await connected(page);
  const input = page.getByTestId("photo-input");
  await expect(input).toHaveAttribute("capture", "environment");
  await expect(input).toHaveAttribute("accept", "image/*");

  // Two photos at once; one is taken out again.
  await input.setInputFiles([
    { name: "vriezer.jpg", mimeType: "image/jpeg", buffer: await cameraPhoto(page, 200) },
    { name: "thermometer.jpg", mimeType: "image/jpeg", buffer: await cameraPhoto(page, 20) },
  ]);
  const thumbs = page.locator("form li img");
  await expect(thumbs).toHaveCount(2);
  await page.getByLabel("Bericht").fill("Bevinding: koelcel op 11 °C, zie foto");
  await shots(page, "composer");
  await page.getByRole("button", { name: "Foto weghalen" }).first().click();
  await expect(thumbs).toHaveCount(1);

  await page.getByLabel("Bericht").press("Enter");
  await expect(thumbs).toHaveCount(0);
  const bubble = log(page).locator("article").filter({ hasText: "koelcel op 11 °C" });
  await expect(bubble.locator("img")).toHaveCount(1);

  // On the wire: the text part and one image part, a JPEG shrunk to 2048 px on its longest side.
  const frame = sent.map((f) => JSON.parse(f)).find((f) => Array.isArray(f.messages?.[0]?.content));
  expect(frame).toBeTruthy();
  const parts = frame.messages[0].content;
  expect(parts[0]).toEqual({ type: "text", text: "Bevinding: koelcel op 11 °C, zie foto" });
  expect(parts).toHaveLength(2);
  expect(parts[1].type).toBe("image");
  expect(parts[1].source.type).toBe("data");
  expect(parts[1].source.mimeType).toBe("image/jpeg");
  const jpeg = Buffer.from(parts[1].source.value, "base64");
  expect(jpegSize(jpeg)).toEqual({ width: 2048, height: 1365 });
  testInfo.annotations.push({ type: "shrunk", description: `${jpeg.length} bytes` });

  // The answer comes; after a reload the photo is the server's, served to this user.
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden({ timeout: 30_000 });
  await page.reload();
  await connected(page);
  const stored = log(page).locator("article").filter({ hasText: "koelcel op 11 °C" }).locator("img");
  await expect(stored).toHaveCount(1);
  await expect(stored).toHaveAttribute("src", /^\/photos\/[0-9a-f]{64}$/);
  await expect.poll(() => stored.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2048);
  await shots(page, "conversation", stored);
});

test("a file that is not an image is refused in the browser and nothing is attached", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  await page.getByTestId("photo-input").setInputFiles({
    name: "rapport.jpg",
    mimeType: "image/jpeg",
    buffer: Buffer.from("%PDF-1.7\n%%EOF\n"),
  });
  await expect(page.getByRole("alert")).toContainText("geen foto");
  await expect(page.locator("form li img")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Verstuur" })).toBeDisabled();
});

test("a finding's photo is seen in the conversation, on the report card and in the approved PDF", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
  await page.getByLabel("Bericht").press("Enter");
  await expect(log(page).getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await page.getByTestId("photo-input").setInputFiles({
    name: "koelcel.jpg",
    mimeType: "image/jpeg",
    buffer: withExifTime(await cameraPhoto(page, 120), "2026:11:27 10:32:05"),
  });
  await expect(page.locator("form li img")).toHaveCount(1);
  await page.getByLabel("Bericht").fill("Bevinding: rauwe vis naast groenten bewaard op 12 °C");
  await page.getByLabel("Bericht").press("Enter");
  await expect(log(page).getByText("Regelgeving Specialist")).toBeVisible();
  const bubble = log(page).locator("article").filter({ hasText: "Bevinding: rauwe vis naast groenten" });
  await expect(bubble.locator("img")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden({ timeout: 30_000 });
  await shots(page, "finding", bubble);
  await page.getByLabel("Bericht").fill("Genereer het inspectierapport zonder vragen");
  await page.getByLabel("Bericht").press("Enter");
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  // The approval shows the finding with its photo before the report is signed.
  const approving = dialog.getByTestId("finding-photos").locator("img");
  await expect(approving).toHaveCount(1);
  await expect(approving).toHaveAttribute("src", /^\/photos\/[0-9a-f]{64}$/);
  await shots(page, "approval", approving);
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  const link = page.getByRole("link", { name: /Download PDF/ });
  await expect(link).toBeVisible();
  // The report card shows the finding with its photo, served by the server to this user.
  const card = page.getByTestId("report-photos");
  await expect(card).toContainText(/rauwe vis naast groenten/i);
  const thumb = card.locator("img");
  await expect(thumb).toHaveCount(1);
  await expect(thumb).toHaveAttribute("src", /^\/photos\/[0-9a-f]{64}$/);
  await thumb.scrollIntoViewIfNeeded();
  await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2048);
  await shots(page, "report-card", card);
  const pdf = await page.request.get((await link.getAttribute("href"))!);
  expect(pdf.status()).toBe(200);
  const path = "screenshots/ui-photos-report.pdf";
  writeFileSync(path, await pdf.body());
  // One image in the PDF: the finding's photo (poppler-utils' pdfimages).
  const listed = execFileSync("pdfimages", ["-list", path], { encoding: "utf8" });
  const images = listed.split("\n").slice(2).filter((line) => line.trim() !== "");
  expect(images, listed).toHaveLength(1);
  // The time the camera wrote, read in the browser before the shrink dropped the EXIF.
  const text = execFileSync("pdftotext", [path, "-"], { encoding: "utf8" });
  expect(text).toContain("genomen 2026-11-27 10:32");
});

test.describe("in Amsterdam's time zone", () => {
  test.use({ timezoneId: "Europe/Amsterdam" });

  test("image files dropped on the composer are photos, each with the time it was taken", async ({ page }) => {
    const sent: string[] = [];
    page.on("websocket", (ws) => ws.on("framesent", (frame) => sent.push(String(frame.payload))));
    await page.goto("/");
    await connected(page);
    const plain = (await cameraPhoto(page, 60)).toString("base64");
    const camera = withExifTime(await cameraPhoto(page, 240), "2026:11:25 07:45:00").toString("base64");
    // A desktop's drag from the file manager: a DataTransfer with two files on the composer.
    const transfer = await page.evaluateHandle(
      ([plain, camera]) => {
        const file = (b64: string, name: string) =>
          new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, {
            type: "image/jpeg",
            // 2026-11-27 10:32:05 in Amsterdam.
            lastModified: Date.UTC(2026, 10, 27, 9, 32, 5),
          });
        const data = new DataTransfer();
        data.items.add(file(plain, "vriezer.jpg"));
        data.items.add(file(camera, "camera.jpg"));
        return data;
      },
      [plain, camera],
    );
    const composer = page.locator("form").filter({ has: page.getByLabel("Bericht") });
    await composer.dispatchEvent("dragover", { dataTransfer: transfer });
    await composer.dispatchEvent("drop", { dataTransfer: transfer });
    await expect(page.locator("form li img")).toHaveCount(2);
    await send(page, "Vriezer, zie foto's");
    await expect(page.locator("form li img")).toHaveCount(0);

    const frame = sent.map((f) => JSON.parse(f)).find((f) => Array.isArray(f.messages?.[0]?.content));
    const parts = frame.messages[0].content.slice(1);
    // Shrunk in any order (each file decodes on its own): told apart by their time.
    const times = parts.map((p: { metadata?: { takenAt?: string } }) => p.metadata?.takenAt).sort();
    // The camera's EXIF time; the file's last change for a photo without one.
    expect(times).toEqual(["2026-11-25T07:45:00", "2026-11-27T10:32:05"]);
    await expect(page.getByRole("button", { name: "Stop" })).toBeHidden({ timeout: 30_000 });
  });
});

test("a photo attached without a connection waits in IndexedDB, survives a reload and is sent once", async ({ page, context, request }) => {
  test.setTimeout(90_000);
  // The socket cannot connect while `blocked`; after the network is back the page itself still
  // loads (a tablet whose WebSocket a proxy cuts, or a dead zone that lets the page come).
  let blocked = false;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (blocked) ws.close({ code: 4000, reason: "blocked" });
    else ws.connectToServer();
  });
  await page.goto("/");
  await connected(page);
  const thread = await page.evaluate(() => localStorage.getItem("hai.threadId"));
  const photo = await cameraPhoto(page, 300);
  blocked = true;
  await context.setOffline(true);
  await expect(badge(page)).toHaveText("offline");

  await page.getByTestId("photo-input").setInputFiles({ name: "vriezer.jpg", mimeType: "image/jpeg", buffer: photo });
  await expect(page.locator("form li img")).toHaveCount(1);
  const words = "Bevinding: ijs op de vloer van de diepvriescel";
  await send(page, words);
  const queued = log(page).locator("article").filter({ hasText: words });
  await expect(queued).toContainText("wacht op verbinding");
  await expect(queued.locator("img")).toHaveCount(1);
  // The photo is in IndexedDB; localStorage has only the text and how many photos it has.
  await expect.poll(() => photosInIndexedDb(page)).toBe(1);
  const local = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(local).not.toContain("data:image");
  expect(local).toContain(words);

  await context.setOffline(false);
  await page.reload();
  await hydrated(page);
  await expect(queued).toContainText("wacht op verbinding");
  await expect(queued.locator("img")).toHaveCount(1);
  await page.screenshot({ path: "screenshots/ui-photos-queued-after-reload.png" });

  blocked = false;
  // The page retries by itself too: its next attempt may connect before the click.
  const retry = page.getByRole("button", { name: "Opnieuw proberen" });
  await retry.click({ timeout: 5_000 }).catch(() => expect(retry).toBeHidden());
  await expect(badge(page)).toHaveText("verbonden", { timeout: 20_000 });
  await expect(queued).not.toContainText("wacht op verbinding");
  await expect(page.getByRole("button", { name: "Stop" })).toBeHidden({ timeout: 30_000 });
  // Sent: IndexedDB no longer keeps it, and another reload sends nothing again.
  await expect.poll(() => photosInIndexedDb(page)).toBe(0);
  await page.reload();
  await connected(page);
  await expect(log(page).locator("article").filter({ hasText: words })).toHaveCount(1);
  const history = await (await request.get(`/sessions/${thread}/history`)).json();
  const messages = (history.history as { content?: string; photos?: string[] }[]).filter((m) =>
    JSON.stringify(m).includes(words),
  );
  expect(messages, JSON.stringify(history)).toHaveLength(1);
  expect(messages[0].photos, JSON.stringify(messages[0])).toHaveLength(1);
  expect(messages[0].photos![0]).toMatch(/^\/photos\/[0-9a-f]{64}$/);
});
