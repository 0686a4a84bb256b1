// What a 2 MB camera photo costs (issue 37). Not a test: `npx playwright test -c
// bench/bench.config.ts photos` after `make build` (AGORA_BIN and E2E_PORT as for `make e2e`);
// it prints PHOTO BENCH {...}.
// - browser: the composer's shrink (decode, draw at most 2048 px, JPEG 0.85), from the file
//   input's change to the thumbnail in the page, by `performance.now` in the page; five runs,
//   the median, at full speed and with the CPU 4× slower (a mid-range tablet);
// - wire: the bytes of the socket frame that carries it (base64 inside JSON) and of the JPEG;
// - server: CPU time (utime + stime of the server process, /proc) per message with a photo,
//   less the same message without one (the planner's run), and its resident memory;
// - 20 clients at once: twenty sockets of twenty users each send a message with a 2 MB photo as
//   it came from the camera (not shrunk: the worst a client may send within the 3 MiB limit),
//   and the server's peak resident memory (VmHWM) before and after.
import { readFileSync, readdirSync } from "node:fs";
import { test, type Page } from "@playwright/test";

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const port = Number(process.env.E2E_PORT ?? 8124);

/** The server's process: the one whose command line listens on the bench's port. */
function serverPid(): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (cmd[0].endsWith("agora-hai") && cmd.includes(`127.0.0.1:${port}`)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error("no server process");
}

/** CPU seconds (user + system) the process has used. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory now and at its peak, in MiB. */
function memory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)![1]);
  return { rssMiB: Math.round(kib("VmRSS") / 102.4) / 10, peakMiB: Math.round(kib("VmHWM") / 102.4) / 10 };
}

/** A camera-like JPEG of about 2 MB (4000 × 3000, noise over a gradient), as base64; `seed`
 *  makes each one's bytes different (photos are stored once by content). */
async function cameraPhoto(page: Page, seed: number): Promise<string> {
  return page.evaluate((seed) => {
    const w = window as any;
    const canvas = document.createElement("canvas");
    canvas.width = 4000;
    canvas.height = 3000;
    const context = canvas.getContext("2d")!;
    const gradient = context.createLinearGradient(0, 0, 4000, 3000);
    gradient.addColorStop(0, `hsl(${seed * 37}, 60%, 35%)`);
    gradient.addColorStop(1, `hsl(${seed * 37 + 120}, 60%, 70%)`);
    context.fillStyle = gradient;
    context.fillRect(0, 0, 4000, 3000);
    // Grain, as a sensor's: what makes a real photo large.
    const image = context.getImageData(0, 0, 4000, 3000);
    const data = image.data;
    let x = seed * 7919 + 1;
    for (let i = 0; i < data.length; i += 4) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      const grain = (x & 31) - 16;
      data[i] += grain;
      data[i + 1] += grain;
      data[i + 2] += grain;
    }
    context.putImageData(image, 0, 0);
    // The highest quality at which the first one is at most 2 MB (2.8 M base64 characters);
    // the others, as grainy, at the same.
    let quality = w.__quality ?? 0.98;
    let url = canvas.toDataURL("image/jpeg", quality);
    while (w.__quality === undefined && url.length > 2_796_000 && quality > 0.3) {
      quality -= 0.02;
      url = canvas.toDataURL("image/jpeg", quality);
    }
    w.__quality = quality;
    return url.split(",")[1];
  }, seed);
}

/** Sends one message per user over its own socket, all at once, and waits for every run's end. */
async function sendAtOnce(page: Page, messages: { user: string; photo?: string }[]): Promise<number> {
  return page.evaluate(async (messages) => {
    const started = performance.now();
    await Promise.all(
      messages.map(
        ({ user, photo }, i) =>
          new Promise<void>((resolve, reject) => {
            const socket = new WebSocket(`ws://${location.host}/ws?user_id=${user}`);
            const thread = `bench-${user}-${Date.now()}-${i}`;
            socket.onopen = () => {
              const content: unknown[] = [{ type: "text", text: "Vriezer" }];
              if (photo) content.push({ type: "image", source: { type: "data", value: photo, mimeType: "image/jpeg" } });
              socket.send(JSON.stringify({ threadId: thread, messages: [{ role: "user", content }], context: {} }));
            };
            socket.onmessage = (m) => {
              const event = JSON.parse(m.data);
              if (event.type === "RUN_FINISHED" || event.type === "RUN_ERROR" || event.name === "agora:error") {
                socket.close();
                if (event.type === "RUN_FINISHED") resolve();
                else reject(new Error(JSON.stringify(event)));
              }
            };
            socket.onerror = () => reject(new Error("socket"));
          }),
      ),
    );
    return performance.now() - started;
  }, messages);
}

test("a 2 MB photo: shrink, wire, server CPU and memory, 20 clients at once", async ({ page, baseURL }) => {
  test.setTimeout(600_000);
  await page.goto(baseURL!);
  await page.locator("html[data-hydrated=true]").waitFor();
  const pid = serverPid();
  const started = memory(pid);

  // Browser: the composer's shrink, at full speed and 4× slower.
  const camera = Buffer.from(await cameraPhoto(page, 1), "base64");
  const shrink: Record<string, number[]> = { full: [], slow4x: [] };
  const cdp = await page.context().newCDPSession(page);
  for (const [speed, rate] of [
    ["full", 1],
    ["slow4x", 4],
  ] as const) {
    await cdp.send("Emulation.setCPUThrottlingRate", { rate });
    for (let i = 0; i < RUNS; i++) {
      await page.evaluate(() => {
        const w = window as any;
        w.__shrunk = undefined;
        const look = () => {
          if (document.querySelector("form li img")) w.__shrunk = performance.now();
          else requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
        w.__picked = performance.now();
      });
      await page.getByTestId("photo-input").setInputFiles({ name: "camera.jpg", mimeType: "image/jpeg", buffer: camera });
      await page.waitForFunction(() => (window as any).__shrunk !== undefined, null, { timeout: 60_000 });
      shrink[speed].push(await page.evaluate(() => (window as any).__shrunk - (window as any).__picked));
      await page.getByRole("button", { name: "Foto weghalen" }).click();
    }
  }
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });

  // Wire: the frame the page sends with the shrunk photo.
  const frames: string[] = [];
  page.on("websocket", (ws) => ws.on("framesent", (f) => frames.push(String(f.payload))));
  await page.reload();
  await page.locator("html[data-hydrated=true]").waitFor();
  await page.getByTestId("photo-input").setInputFiles({ name: "camera.jpg", mimeType: "image/jpeg", buffer: camera });
  await page.locator("form li img").waitFor();
  await page.getByLabel("Bericht").fill("Vriezer");
  await page.getByLabel("Bericht").press("Enter");
  await page.waitForFunction(() => !document.querySelector("form li img"));
  const frame = frames.find((f) => f.includes('"image"'))!;
  const shrunkBase64: string = JSON.parse(frame).messages[0].content[1].source.value;
  const shrunkBytes = Buffer.from(shrunkBase64, "base64").length;

  // Server CPU: 10 messages one after another with a shrunk photo each (each its own bytes),
  // and 10 without; the difference is the photo's.
  const shrunk: string[] = [];
  for (let i = 0; i < 10; i++) {
    const raw = await cameraPhoto(page, 100 + i);
    shrunk.push(
      await page.evaluate(async (raw) => {
        const bytes = Uint8Array.from(atob(raw), (c) => c.charCodeAt(0));
        const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/jpeg" }));
        const scale = Math.min(1, 2048 / Math.max(bitmap.width, bitmap.height));
        const canvas = document.createElement("canvas");
        canvas.width = Math.round(bitmap.width * scale);
        canvas.height = Math.round(bitmap.height * scale);
        canvas.getContext("2d")!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
        return canvas.toDataURL("image/jpeg", 0.85).split(",")[1];
      }, raw),
    );
  }
  const cpu = async (messages: { user: string; photo?: string }[]) => {
    const before = cpuSeconds(pid);
    for (const m of messages) await sendAtOnce(page, [m]);
    return (cpuSeconds(pid) - before) / messages.length;
  };
  const plainCpu = await cpu(shrunk.map((_, i) => ({ user: `bench-plain-${i}` })));
  const photoCpu = await cpu(shrunk.map((photo, i) => ({ user: `bench-shrunk-${i}`, photo })));
  const raws: string[] = [];
  for (let i = 0; i < 20; i++) raws.push(await cameraPhoto(page, 200 + i));
  const rawCpu = await cpu(raws.slice(0, 10).map((photo, i) => ({ user: `bench-raw-${i}`, photo })));
  const afterSequential = memory(pid);

  // 20 clients at once, each with a photo as the camera made it (about 2 MB).
  const fresh: string[] = [];
  for (let i = 0; i < 20; i++) fresh.push(await cameraPhoto(page, 400 + i));
  const beforeBurst = memory(pid);
  const burstMs = await sendAtOnce(
    page,
    fresh.map((photo, i) => ({ user: `bench-burst-${i}`, photo })),
  );
  const afterBurst = memory(pid);

  const report = {
    cameraJpegBytes: camera.length,
    shrinkMs: {
      full: Math.round(median(shrink.full)),
      slow4x: Math.round(median(shrink.slow4x)),
      runs: shrink,
    },
    wire: { shrunkJpegBytes: shrunkBytes, frameBytes: Buffer.byteLength(frame) },
    serverCpuMsPerMessage: {
      textOnly: Math.round(plainCpu * 1000),
      withShrunkPhoto: Math.round(photoCpu * 1000),
      withCameraPhoto2MB: Math.round(rawCpu * 1000),
      shrunkPhotoAlone: Math.round((photoCpu - plainCpu) * 1000),
      cameraPhotoAlone: Math.round((rawCpu - plainCpu) * 1000),
    },
    memoryMiB: { started, afterSequential, beforeBurst, afterBurst },
    burst: { clients: 20, photoBytes: Math.round(median(fresh.map((f) => (f.length * 3) / 4))), wallMs: Math.round(burstMs) },
  };
  console.log(`PHOTO BENCH ${JSON.stringify(report)}`);
});
