// A local front for the benchmark: plain HTTP is passed to the real binary (page, wasm,
// REST), while `/ws` is answered here by a minimal WebSocket server that writes frames
// straight to the socket. Playwright's WebSocket routing relays each message through the
// test runner, which would measure the harness instead of the page: this measures the page.
import { createHash } from "node:crypto";
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import type { AddressInfo } from "node:net";

export interface Front {
  url: string;
  close(): Promise<void>;
}

/** `onText(frame, send)` is called for each text frame the page sends. */
export async function startFront(
  backend: string,
  onText: (text: string, send: (frames: string[]) => void) => void,
): Promise<Front> {
  const target = new URL(backend);
  const sockets = new Set<Duplex>();
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const accept = createHash("sha1")
      .update(`${req.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest("base64");
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    const send = (frames: string[]) => socket.write(Buffer.concat(frames.map(frame)));
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const parsed = unframe(pending);
        if (!parsed) break;
        pending = pending.subarray(parsed.used);
        if (parsed.opcode === 1) onText(parsed.payload.toString("utf8"), send);
        if (parsed.opcode === 8) socket.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One unmasked text frame, server to client. */
function frame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x81, n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65536) {
    head[0] = 0x81;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else if (n >= 65536) {
    head[0] = 0x81;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** One masked client frame from the start of `data`, if complete. */
function unframe(data: Buffer): { opcode: number; payload: Buffer; used: number } | null {
  if (data.length < 2) return null;
  const opcode = data[0] & 0x0f;
  let length = data[1] & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return null;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return null;
    length = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  const masked = (data[1] & 0x80) !== 0;
  const maskAt = offset;
  if (masked) offset += 4;
  if (data.length < offset + length) return null;
  const payload = Buffer.from(data.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= data[maskAt + (i % 4)];
  return { opcode, payload, used: offset + length };
}
