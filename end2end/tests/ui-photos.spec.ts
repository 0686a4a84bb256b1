// Evidence photos (issue 37) against the real binary: a photo taken through the composer's file
// input is shrunk in the browser, shown as a thumbnail that can be removed, sent with the
// message as an AG-UI image part, and shown in the conversation, also after a reload (then
// served by the server, to its owner).
import { type Page } from "@playwright/test";
import { test, expect } from "../support/fixtures";
import { connected } from "../support/ui";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";

const log = (page: Page) => page.getByRole("log");

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
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.screenshot({ path: "screenshots/ui-photos-composer-tablet.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "screenshots/ui-photos-composer-phone.png" });
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
  await page.screenshot({ path: "screenshots/ui-photos-conversation-phone.png" });
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.screenshot({ path: "screenshots/ui-photos-conversation-tablet.png" });
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

test("a finding's photo goes into the approved report's PDF", async ({ page }) => {
  await page.goto("/");
  await connected(page);
  await page.getByLabel("Bericht").fill("Start inspectie bij Trattoria Finta Fiore");
  await page.getByLabel("Bericht").press("Enter");
  await expect(log(page).getByText("Bedrijfsinformatie Specialist")).toBeVisible();
  await page.getByTestId("photo-input").setInputFiles({
    name: "koelcel.jpg",
    mimeType: "image/jpeg",
    buffer: await cameraPhoto(page, 120),
  });
  await expect(page.locator("form li img")).toHaveCount(1);
  await page.getByLabel("Bericht").fill("Bevinding: rauwe vis naast groenten bewaard op 12 °C");
  await page.getByLabel("Bericht").press("Enter");
  await expect(log(page).getByText("Regelgeving Specialist")).toBeVisible();
  await page.getByLabel("Bericht").fill("Genereer het inspectierapport zonder vragen");
  await page.getByLabel("Bericht").press("Enter");
  const dialog = page.getByRole("dialog", { name: "Goedkeuring gevraagd" });
  await dialog.getByRole("button", { name: "Goedkeuren" }).click();
  const link = page.getByRole("link", { name: /Download PDF/ });
  await expect(link).toBeVisible();
  const pdf = await page.request.get((await link.getAttribute("href"))!);
  expect(pdf.status()).toBe(200);
  const path = "screenshots/ui-photos-report.pdf";
  writeFileSync(path, await pdf.body());
  // One image in the PDF: the finding's photo (poppler-utils' pdfimages).
  const listed = execFileSync("pdfimages", ["-list", path], { encoding: "utf8" });
  const images = listed.split("\n").slice(2).filter((line) => line.trim() !== "");
  expect(images, listed).toHaveLength(1);
});
