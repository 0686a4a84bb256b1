// Standard AG-UI over HTTP + SSE, driven by the official client (@ag-ui/client's HttpAgent)
// against the real binary. Every stream is kept as it came over the wire, validated event by
// event with @ag-ui/core's zod schemas and replayed through the client's own verifyEvents.
import { test, expect } from "../support/fixtures";
import {
  HttpAgent,
  buildResumeArray,
  verifyEvents,
  type AgentSubscriber,
  type BaseEvent,
  type HttpAgentFetchFn,
  type Interrupt,
  type Message,
  type Tool,
} from "@ag-ui/client";
import { AgentCapabilitiesSchema, EventSchemas } from "@ag-ui/core/schemas";
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { resolve as resolvePath } from "node:path";
import { from, lastValueFrom, toArray } from "rxjs";

import { startServer } from "../support/binary";

/** The events of an SSE body: `data:` frames parsed, comments (keep-alive) skipped. */
function parseSse(body: string): Record<string, unknown>[] {
  return body
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .flatMap((frame) => {
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart());
      return data.length ? [JSON.parse(data.join("\n"))] : [];
    });
}

/** The whole text of a body; what arrived before an abort, if it is aborted. */
async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // aborted: keep what came
  }
  return text;
}

/** An HttpAgent whose fetch keeps a copy of every response body. */
class Recorded {
  readonly agent: HttpAgent;
  private bodies: Promise<string>[] = [];

  constructor(url: string, threadId = randomUUID()) {
    const record: HttpAgentFetchFn = async (input, init) => {
      const response = await fetch(input, init);
      if (!response.body) return response;
      const [copy, forClient] = response.body.tee();
      this.bodies.push(readAll(copy));
      return new Response(forClient, { status: response.status, headers: response.headers });
    };
    this.agent = new HttpAgent({ url, threadId, fetch: record });
  }

  /** The events of the last run as the server sent them. */
  async lastStream(): Promise<Record<string, unknown>[]> {
    return parseSse(await this.bodies[this.bodies.length - 1]);
  }

  /** Sends a user message (unless `text` is undefined) and runs; returns the run's raw events, checked. */
  async run(text: string | undefined, options: { tools?: Tool[]; resume?: ReturnType<typeof buildResumeArray> } = {}, subscriber?: AgentSubscriber) {
    if (text !== undefined) {
      this.agent.addMessage({ id: randomUUID(), role: "user", content: text });
    }
    const failures: string[] = [];
    const watch: AgentSubscriber = {
      onRunFailed: ({ error }) => {
        failures.push(String(error));
      },
      onRunErrorEvent: ({ event }) => {
        failures.push(`RUN_ERROR ${event.code}: ${event.message}`);
      },
    };
    await this.agent.runAgent(options, { ...watch, ...subscriber });
    expect(failures, "the official client accepted the run").toEqual([]);
    const events = await this.lastStream();
    await checkStream(events);
    return events;
  }
}

/** Each event fits @ag-ui/core's schema, and the stream passes the client's verifyEvents. */
async function checkStream(events: Record<string, unknown>[]) {
  expect(events.length).toBeGreaterThan(0);
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${JSON.stringify(event)}\n${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
  const verified = await lastValueFrom(from(events as unknown as BaseEvent[]).pipe(verifyEvents(), toArray()));
  expect(verified.length).toBe(events.length);
}

const ofType = (events: Record<string, unknown>[], type: string) => events.filter((e) => e.type === type);
const text = (events: Record<string, unknown>[]) => ofType(events, "TEXT_MESSAGE_CONTENT").map((e) => e.delta as string).join("");

function lastFinished(events: Record<string, unknown>[]) {
  const last = events[events.length - 1];
  expect(last.type).toBe("RUN_FINISHED");
  return last as { outcome?: { type: string; interrupts?: Interrupt[] } };
}

test.describe("standard AG-UI over POST /agui with @ag-ui/client", () => {
  // The client warns about whatever it had to strip, repair or guess: none of that here.
  let warnings: string[] = [];
  const warn = console.warn;
  test.beforeEach(() => {
    warnings = [];
    console.warn = (...args: unknown[]) => {
      warnings.push(args.map(String).join(" "));
      warn(...args);
    };
  });
  test.afterEach(() => {
    console.warn = warn;
    expect(warnings, "warnings of @ag-ui/client").toEqual([]);
  });

  test("capabilities are AG-UI AgentCapabilities", async ({ baseURL }) => {
    const agent = new HttpAgent({ url: `${baseURL}/agui` });
    const caps = await (await fetch(`${baseURL}/agui/capabilities`)).json();
    expect(AgentCapabilitiesSchema.safeParse(caps).success).toBe(true);
    expect(caps.humanInTheLoop.interrupts).toBe(true);
    expect(caps.tools.clientProvided).toBe(true);
    expect(agent.url).toContain("/agui");
  });

  test("a photo goes as an AG-UI 1.0 image part and is served back to its owner as a url", async ({ baseURL, page }) => {
    const caps = await (await fetch(`${baseURL}/agui/capabilities`)).json();
    expect(caps.multimodal.input.image).toBe(true);
    // A JPEG the browser encodes (no binary fixture in the repository).
    const dataUrl = await page.evaluate(() => {
      const canvas = document.createElement("canvas");
      canvas.width = 320;
      canvas.height = 240;
      const context = canvas.getContext("2d")!;
      context.fillStyle = "#3a6";
      context.fillRect(0, 0, 320, 240);
      return canvas.toDataURL("image/jpeg", 0.9);
    });
    const client = new Recorded(`${baseURL}/agui`);
    client.agent.addMessage({
      id: randomUUID(),
      role: "user",
      content: [
        { type: "text", text: "Dit is de koelcel" },
        { type: "image", source: { type: "data", value: dataUrl.split(",")[1], mimeType: "image/jpeg" } },
      ],
    });
    const events = await client.run(undefined);
    lastFinished(events);

    const history = await (await fetch(`${baseURL}/sessions/${client.agent.threadId}/history`)).json();
    const photos: string[] = history.history[0].photos;
    expect(history.history[0].content).toBe("Dit is de koelcel");
    expect(photos).toHaveLength(1);
    expect(photos[0]).toMatch(/^\/photos\/[0-9a-f]{64}$/);
    const photo = await fetch(`${baseURL}${photos[0]}`);
    expect(photo.status).toBe(200);
    expect(photo.headers.get("content-type")).toBe("image/jpeg");
    expect(photo.headers.get("x-content-type-options")).toBe("nosniff");
    expect(photo.headers.get("cache-control")).toMatch(/^private/);
    const bytes = Buffer.from(await photo.arrayBuffer());
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  test("inspection, finding and report: the interrupt rejected once, then approved", async ({ baseURL }) => {
    const client = new Recorded(`${baseURL}/agui`);
    const agent = client.agent;

    // Inspection start: the history agent looks the company up.
    let events = await client.run("Start inspectie bij Trattoria Finta Fiore, KVK 99990001");
    const tools = ofType(events, "TOOL_CALL_START").map((e) => e.toolCallName);
    expect(tools).toEqual(expect.arrayContaining(["get_company_info", "get_inspection_history"]));
    expect(text(events)).toContain("Finta Fiore");
    expect(lastFinished(events).outcome).toBeUndefined();

    // A finding: the regulation agent cites the articles.
    events = await client.run("Bevinding: rauwe vis naast groenten bewaard op 12 °C");
    expect(text(events)).toMatch(/852\/2004|Hygiënecode/);

    // A question: which rules apply.
    events = await client.run("Welke regels gelden voor allergeneninformatie in een restaurant?");
    expect(text(events)).toMatch(/allergen/i);

    // The report needs approval: the run ends with an interrupt.
    events = await client.run("Genereer het inspectierapport zonder vragen");
    let outcome = lastFinished(events).outcome!;
    expect(outcome.type).toBe("interrupt");
    // AG-UI 1.0: the report specialist's turn is a subagent invocation, suspended on it.
    const reporting = ofType(events, "SUBAGENT_STARTED").find((e) => e.name === "reporting-agent");
    expect(reporting?.parentToolCallId).toBeTruthy();
    const suspended = ofType(events, "SUBAGENT_FINISHED").find((e) => e.subagentRunId === reporting?.subagentRunId);
    expect((suspended?.outcome as { type: string }).type).toBe("suspended");
    expect(agent.pendingInterrupts).toHaveLength(1);
    let interrupt = agent.pendingInterrupts[0];
    expect(interrupt.reason).toBe("tool_call");
    expect(interrupt.message).toBeTruthy();
    expect(interrupt.responseSchema?.properties).toHaveProperty("approved");
    expect(interrupt.responseSchema?.properties).toHaveProperty("editedArgs");
    expect(Date.parse(interrupt.expiresAt!)).toBeGreaterThan(Date.now());
    const announced = ofType(events, "TOOL_CALL_START").find((e) => e.toolCallName === "generate_final_report");
    expect(announced?.toolCallId).toBe(interrupt.toolCallId);
    expect(ofType(events, "STATE_SNAPSHOT").length).toBeGreaterThan(0);
    expect(events[events.length - 2].type).toBe("MESSAGES_SNAPSHOT");

    // Without answering, the client refuses a new run itself.
    await expect(agent.runAgent()).rejects.toThrow(/pending interrupt/);

    // Rejected: only the tool result for the announced call, then the agent says so.
    events = await client.run(undefined, {
      resume: buildResumeArray(agent.pendingInterrupts, {
        [interrupt.id]: { status: "resolved", payload: { approved: false, feedback: "Eerst de koelcel opnieuw meten" } },
      }),
    });
    expect(ofType(events, "TOOL_CALL_START").some((e) => e.toolCallId === interrupt.toolCallId)).toBe(false);
    const rejected = ofType(events, "TOOL_CALL_RESULT");
    expect(rejected.map((e) => e.toolCallId)).toEqual([interrupt.toolCallId]);
    expect(rejected[0].content).toContain("rejected");
    expect(text(events)).toContain("Eerst de koelcel opnieuw meten");
    expect(agent.pendingInterrupts).toHaveLength(0);

    // Asked again and approved: the PDF is there.
    events = await client.run("Genereer het inspectierapport zonder vragen");
    outcome = lastFinished(events).outcome!;
    expect(outcome.type).toBe("interrupt");
    interrupt = agent.pendingInterrupts[0];
    events = await client.run(undefined, {
      resume: buildResumeArray(agent.pendingInterrupts, {
        [interrupt.id]: { status: "resolved", payload: { approved: true } },
      }),
    });
    const results = ofType(events, "TOOL_CALL_RESULT");
    expect(results.map((e) => e.toolCallId)).toEqual([interrupt.toolCallId]);
    const report = JSON.parse(results[0].content as string);
    expect(report.downloadUrl).toMatch(/^\/reports\/.+\.pdf$/);
    expect(text(events)).toContain(report.downloadUrl);
    const pdf = await fetch(`${baseURL}${report.downloadUrl}`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(agent.pendingInterrupts).toHaveLength(0);

    // The client's history holds the answer with the link.
    const last = agent.messages[agent.messages.length - 1] as Message & { content?: string };
    expect(last.role).toBe("assistant");
    expect(last.content).toContain(report.downloadUrl);
  });

  test("a client tool: the run ends after TOOL_CALL_END and the next run reads its result", async ({ baseURL }) => {
    const client = new Recorded(`${baseURL}/agui`);
    const tools: Tool[] = [
      {
        name: "show_checklist",
        description: "Shows the inspection checklist for a topic on the inspector's device",
        parameters: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] },
      },
    ];
    let pending: string[] = [];
    let events = await client.run("Toon de checklist voor de koelcel met show_checklist", { tools }, {
      onRunFinishedEvent: (params) => {
        if (params.outcome === "success") pending = params.pendingToolCallIds;
      },
    });
    const calls = ofType(events, "TOOL_CALL_START");
    expect(calls.map((e) => e.toolCallName)).toEqual(["show_checklist"]);
    expect(ofType(events, "TOOL_CALL_RESULT")).toHaveLength(0);
    const callId = calls[0].toolCallId as string;
    expect(pending).toEqual([callId]);
    const args = JSON.parse(ofType(events, "TOOL_CALL_ARGS")[0].delta as string);
    expect(args.topic).toContain("koelcel");

    // The application runs the tool and answers in the next run.
    client.agent.addMessage({ id: randomUUID(), role: "tool", toolCallId: callId, content: "Checklist getoond: 3 van 5 punten afgevinkt" });
    events = await client.run(undefined, { tools });
    expect(ofType(events, "TOOL_CALL_START")).toHaveLength(0);
    expect(text(events)).toContain("3 van 5 punten afgevinkt");
  });

  test("an aborted stream leaves the run going: it can be reattached to, and cancelled", async () => {
    test.setTimeout(60_000);
    // A model that never answers keeps the run waiting, so the abort surely comes first.
    const model: Server = createServer(() => {});
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const modelPort = (model.address() as { port: number }).port;
    const server = await startServer(["--auth", "dev", "--llm-base-url", `http://127.0.0.1:${modelPort}/v1`]);
    const base = server.url;
    try {
      const client = new Recorded(`${base}/agui`);
      client.agent.addMessage({ id: randomUUID(), role: "user", content: "Welke regels gelden voor allergenen?" });
      let runId = "";
      let thinking!: () => void;
      const waiting = new Promise<void>((resolve) => (thinking = resolve));
      const running = client.agent.runAgent(
        {},
        {
          onRunStartedEvent: ({ event }) => {
            runId = event.runId;
          },
          onStepStartedEvent: ({ event }) => {
            if (event.stepName === "thinking") thinking();
          },
        },
      );
      await waiting;
      client.agent.abortRun();
      await running.catch(() => undefined);

      // What arrived before the abort is valid AG-UI.
      const events = await client.lastStream();
      expect(events[0].type).toBe("RUN_STARTED");
      for (const event of events) expect(EventSchemas.safeParse(event).success).toBe(true);
      await lastValueFrom(from(events as unknown as BaseEvent[]).pipe(verifyEvents(), toArray()));

      // The run goes on at the server (AG-UI `transport.resumable`): a client reattaches to
      // its stream, from its start without Last-Event-ID; a cancel ends it there.
      const reattached = await fetch(`${base}/agui/runs/${runId}/events`, { headers: { accept: "text/event-stream" } });
      expect(reattached.status).toBe(200);
      const cancel = await fetch(`${base}/agui/runs/${runId}/cancel`, { method: "POST" });
      expect(cancel.status).toBe(200);
      const frames = (await reattached.text()).split("\n\n").filter((f) => f.startsWith("data: "));
      const again = frames.map((f) => JSON.parse(f.split("\n")[0].slice("data: ".length)));
      const ids = frames.map((f) => Number(f.split("\nid: ")[1]));
      expect(again[0]).toEqual(events[0]);
      expect(again.at(-1).type).toBe("RUN_FINISHED");
      expect(again.at(-1).outcome).toEqual({ type: "cancelled" });
      expect(ids.every((id, i) => i === 0 || id === ids[i - 1] + 1)).toBe(true);
      await lastValueFrom(from(again as unknown as BaseEvent[]).pipe(verifyEvents(), toArray()));

      // The server stored the run as cancelled: the cancel endpoint finds nothing left to stop.
      await expect
        .poll(async () => {
          const response = await fetch(`${base}/agui/runs/${runId}/cancel`, { method: "POST" });
          return `${response.status} ${(await response.json()).detail}`;
        })
        .toMatch(/^409 .*cancelled/);
    } finally {
      await server.dispose();
      model.close();
    }
  });

  test("a run cancelled from elsewhere reports the cancelled outcome to the client", async () => {
    test.setTimeout(60_000);
    const model: Server = createServer(() => {});
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const modelPort = (model.address() as { port: number }).port;
    const server = await startServer(["--auth", "dev", "--llm-base-url", `http://127.0.0.1:${modelPort}/v1`]);
    try {
      const client = new Recorded(`${server.url}/agui`);
      client.agent.addMessage({ id: randomUUID(), role: "user", content: "Welke regels gelden voor allergenen?" });
      let runId = "";
      let outcome = "";
      let thinking!: () => void;
      const waiting = new Promise<void>((resolve) => (thinking = resolve));
      const running = client.agent.runAgent(
        {},
        {
          onRunStartedEvent: ({ event }) => {
            runId = event.runId;
          },
          onStepStartedEvent: ({ event }) => {
            if (event.stepName === "thinking") thinking();
          },
          onRunFinishedEvent: (params) => {
            outcome = params.outcome;
          },
        },
      );
      await waiting;
      expect((await fetch(`${server.url}/agui/runs/${runId}/cancel`, { method: "POST" })).status).toBe(200);
      await running;
      expect(outcome).toBe("cancelled");
      const events = await client.lastStream();
      await checkStream(events);
      expect(lastFinished(events).outcome).toEqual({ type: "cancelled" });
      expect(ofType(events, "RUN_ERROR")).toHaveLength(0);
    } finally {
      await server.dispose();
      model.close();
    }
  });

  // Issue 39: a tool of an authority's MCP server (FastMCP over streamable HTTP, from the venv
  // set-up makes, as tests/integration/mcp_client.rs starts it) called by the model is, to the
  // official client, an ordinary tool call: the same four events, valid by @ag-ui/core's
  // schemas and verifyEvents. The model is scripted: a call of the MCP tool, then text.
  test("an MCP server's tool called by the model is an ordinary tool call to @ag-ui/client", async () => {
    test.setTimeout(60_000);
    let requests = 0;
    const model: Server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        const n = requests++;
        const frame = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        const body =
          n === 0
            ? frame({ tool_calls: [{ index: 0, id: "call_0", type: "function", function: { name: "lookup_permits", arguments: JSON.stringify({ kvk: "92251854" }) } }] }, null) +
              frame({}, "tool_calls")
            : frame({ content: "Twee erkenningen, waaronder NL 4521 EG." }, null) + frame({}, "stop");
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(body + "data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const modelPort = (model.address() as { port: number }).port;
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const toolPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const python = resolvePath(process.env.XDG_CACHE_HOME ?? `${homedir()}/.cache`, "agora-hai/mcp-venv/bin/python");
    const tools = spawn(python, [resolvePath(__dirname, "../../scripts/mcp_tool_server.py"), String(toolPort)], { stdio: "ignore" });
    const server = await startServer([
      "--auth", "dev",
      "--llm-base-url", `http://127.0.0.1:${modelPort}/v1`,
      "--llm-context-tokens", "8192",
      "--mcp-server", `vergunningen=http://127.0.0.1:${toolPort}/mcp`,
    ]);
    try {
      // The server connects to the tool server in the background; /ready says when it is up.
      await expect
        .poll(async () => JSON.stringify(await (await fetch(`${server.url}/ready`)).json()), { timeout: 30_000 })
        .toContain('"up"');
      const client = new Recorded(`${server.url}/agui`);
      const events = await client.run("Welke erkenningen heeft KVK 92251854?");
      expect(events.map((e) => e.type as string).filter((t) => t.startsWith("TOOL_CALL"))).toEqual([
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
      ]);
      expect(ofType(events, "TOOL_CALL_START")[0].toolCallName).toBe("lookup_permits");
      expect(String(ofType(events, "TOOL_CALL_RESULT")[0].content)).toContain("NL 4521 EG");
      expect(text(events)).toContain("NL 4521 EG");
      // The official client's own message list holds the call and its result.
      const messages = client.agent.messages;
      expect(messages.some((m) => m.role === "tool")).toBe(true);
    } finally {
      await server.dispose();
      tools.kill("SIGKILL");
      model.close();
    }
  });
});
