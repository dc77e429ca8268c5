/**
 * Independent slow-client corpus for issue 10 (black box, `warden serve`): connections that send their
 * headers or their body a byte at a time, or nothing at all, must not be held indefinitely, and /healthz
 * must keep answering while they are open. The issue found 200 of 200 such connections still open
 * after 17 s; here the server gets SLOW_WINDOW_MS (far beyond any header or body timeout a service
 * would choose) to drop every one of them. Close times are printed as a measurement.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, startWardenServer, type WardenServer } from "./harness.js";

const HEADER_DRIBBLERS = 60;
const BODY_DRIBBLERS = 30;
const SILENT = 30;
const DRIBBLE_EVERY_MS = 1_000;
const SLOW_WINDOW_MS = 45_000;

let server: WardenServer;

beforeAll(async () => {
  server = await startWardenServer(["--check-timeout", "5000", "--learn", "off"]);
}, 150_000);

afterAll(async () => {
  await server?.stop();
});

interface Slow {
  kind: "headers" | "body" | "silent";
  socket: Socket;
  openedAt: number;
  closedAt?: number;
  timer?: NodeJS.Timeout;
}

function openSlow(kind: Slow["kind"], port: number): Slow {
  const socket = connect({ host: "127.0.0.1", port });
  const slow: Slow = { kind, socket, openedAt: performance.now() };
  socket.on("error", () => {});
  socket.on("data", () => {});
  socket.on("close", () => {
    slow.closedAt = performance.now();
    clearInterval(slow.timer);
  });
  let n = 0;
  const host = `Host: 127.0.0.1:${port}\r\n`;
  if (kind === "headers") {
    socket.write(`GET /healthz HTTP/1.1\r\n${host}`);
    slow.timer = setInterval(() => {
      if (!socket.destroyed) socket.write(`X-Pad-${n++}: x\r\n`);
    }, DRIBBLE_EVERY_MS);
  } else if (kind === "body") {
    socket.write(
      `POST /v1/check HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"policy":`,
    );
    slow.timer = setInterval(() => {
      if (!socket.destroyed) socket.write(" ");
    }, DRIBBLE_EVERY_MS);
  }
  return slow;
}

describe("slow clients", () => {
  it("dribbling and silent connections are dropped, and /healthz answers while they are open", async () => {
    const slows: Slow[] = [
      ...Array.from({ length: HEADER_DRIBBLERS }, () => openSlow("headers", server.port)),
      ...Array.from({ length: BODY_DRIBBLERS }, () => openSlow("body", server.port)),
      ...Array.from({ length: SILENT }, () => openSlow("silent", server.port)),
    ];
    const probes: Array<number | string> = [];
    const started = performance.now();
    try {
      while (performance.now() - started < SLOW_WINDOW_MS && slows.some((s) => s.closedAt === undefined)) {
        if (probes.length < 10) {
          const r = await request({ port: server.port, path: "/healthz", timeoutMs: 20_000 });
          probes.push(r.response?.status ?? (r.failure as string));
        }
        await new Promise((d) => setTimeout(d, 500));
      }
    } finally {
      for (const s of slows) {
        clearInterval(s.timer);
        s.socket.destroy();
      }
    }
    const byKind = (kind: Slow["kind"]) => slows.filter((s) => s.kind === kind);
    const summary = (["headers", "body", "silent"] as const).map((kind) => {
      const all = byKind(kind);
      const closed = all.filter((s) => s.closedAt !== undefined && s.closedAt - started < SLOW_WINDOW_MS);
      const times = closed.map((s) => ((s.closedAt as number) - s.openedAt) / 1000).sort((a, b) => a - b);
      return {
        kind,
        open: all.length - closed.length,
        line: `${kind}: ${closed.length}/${all.length} dropped${times.length ? ` after ${times[0]?.toFixed(1)}–${times.at(-1)?.toFixed(1)} s` : ""}`,
      };
    });
    console.log(
      `[slow-clients] ${summary.map((s) => s.line).join("; ")}; /healthz probes: ${probes.join(", ")}`,
    );
    expect(probes.length, "at least one /healthz probe").toBeGreaterThan(0);
    expect(
      probes.filter((p) => p !== 200),
      "/healthz while slow clients are connected",
    ).toEqual([]);
    const stillOpen = summary.filter((s) => s.open > 0).map((s) => `${s.open} ${s.kind} connections`);
    expect(stillOpen, `still open after ${SLOW_WINDOW_MS / 1000} s: ${stillOpen.join(", ")}`).toEqual([]);
  }, 120_000);
});
