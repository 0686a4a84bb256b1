// A scripted AGORA server for the page's /ws, through Playwright's WebSocket routing: the page
// and its REST calls still come from the real binary, only the socket is answered here. Used
// by the streaming benchmark and by the UI tests that need events the embedded planner never
// sends (RUN_ERROR, several approvals at once, model output with HTML in it).
import type { Page, WebSocketRoute } from "@playwright/test";

export type AgoraEvent = Record<string, unknown> & { type: string };

export interface FakeAgora {
  /** Every frame the page sent, parsed. */
  received: any[];
  /** Sends events to the page now. */
  send(events: AgoraEvent[]): void;
  /** The route, once the page has connected. */
  socket(): WebSocketRoute | undefined;
}

/**
 * Routes the page's `/ws` to a fake server. `onRun(text, threadId)` returns the events that
 * answer a user message; the history request and a resume are answered with `history`
 * (default: none).
 */
export async function fakeAgora(
  page: Page,
  onRun: (text: string, threadId: string) => AgoraEvent[],
  history: unknown[] = [],
): Promise<FakeAgora> {
  const received: any[] = [];
  let route: WebSocketRoute | undefined;
  const send = (events: AgoraEvent[]) => {
    for (const event of events) route?.send(JSON.stringify(event));
  };
  await page.routeWebSocket(/\/ws$/, (ws) => {
    route = ws;
    ws.onMessage((message) => {
      const frame = JSON.parse(String(message));
      received.push(frame);
      const stored = storedThread(frame, history);
      if (stored) {
        send(stored);
      } else if (!frame.type && Array.isArray(frame.messages)) {
        send(onRun(frame.messages[frame.messages.length - 1].content, frame.threadId));
      }
    });
  });
  return { received, send, socket: () => route };
}

/**
 * The answer to a page asking for the thread as stored (`agora:history_request`, or
 * `agora:resume` as the real server answers a page that has nothing yet); `undefined` for
 * any other frame.
 */
export function storedThread(frame: any, history: unknown[] = []): AgoraEvent[] | undefined {
  if (frame.type !== "CUSTOM") return undefined;
  if (frame.name === "agora:history_request") return [{ type: "MESSAGES_SNAPSHOT", messages: history }];
  if (frame.name !== "agora:resume") return undefined;
  const threadId = frame.value.threadId;
  return [
    { type: "CUSTOM", name: "agora:resumed", value: { threadId, mode: "snapshot", reason: "requested", lastSeq: 0, running: false } },
    { type: "MESSAGES_SNAPSHOT", messages: history },
  ];
}

let counter = 0;
const id = (prefix: string) => `${prefix}-${++counter}`;

/** A run that streams `chunks` as one answer of `agent`. */
export function textRun(threadId: string, chunks: string[], agent = "general-agent"): AgoraEvent[] {
  const runId = id("run");
  const messageId = id("msg");
  return [
    ...runStart(threadId, runId, agent),
    { type: "STEP_STARTED", stepName: "thinking" },
    { type: "TEXT_MESSAGE_START", messageId, role: "assistant", name: agent },
    ...chunks.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta })),
    { type: "TEXT_MESSAGE_END", messageId },
    { type: "STEP_FINISHED", stepName: "thinking" },
    ...runEnd(threadId, runId, agent),
  ];
}

export function runStart(threadId: string, runId: string, agent = "general-agent"): AgoraEvent[] {
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "STATE_SNAPSHOT", snapshot: { threadId, runId, currentAgent: agent, status: "processing" } },
  ];
}

export function runEnd(threadId: string, runId: string, agent = "general-agent"): AgoraEvent[] {
  return [
    { type: "STATE_SNAPSHOT", snapshot: { threadId, runId, currentAgent: agent, status: "completed" } },
    { type: "RUN_FINISHED", threadId, runId },
  ];
}

export function approvalRequest(
  approvalId: string,
  riskLevel: "low" | "medium" | "high" | "critical",
  toolName = "generate_final_report",
): AgoraEvent {
  return {
    type: "CUSTOM",
    name: "agora:tool_approval_request",
    value: {
      toolName,
      toolDescription: `Beschrijving van ${toolName}`,
      parameters: { kvk: "92251854", findings: [{ description: "rauwe vis", severity: "ernstig" }] },
      reasoning: `Reden voor ${approvalId}`,
      riskLevel,
      approvalId,
    },
  };
}

/** About `tokens` model tokens of Markdown (a token is ~4 characters), as deltas of one token. */
export function longAnswer(tokens: number): string[] {
  const words = ["inspectie ", "koelcel ", "**temperatuur** ", "7 °C ", "allergenen ", "`HACCP` ", "registratie ", "hygiënecode "];
  const out: string[] = [];
  for (let i = 0; i < tokens; i++) {
    if (i % 400 === 0) out.push(`\n\n## Deel ${i / 400 + 1}\n\n`);
    else if (i % 40 === 0) out.push("\n- ");
    else out.push(words[i % words.length]);
  }
  return out;
}
