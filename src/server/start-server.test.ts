import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Decision } from "../core/decision.js";
import { isWardenError } from "../core/errors.js";
import { createScriptedModel } from "../testing/scripted-model.js";
import type { ErrorBody } from "./http-status.js";
import { type RunningServer, startServer } from "./start-server.js";

const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ method: "tools/call", params: { name, arguments: args } });

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const check = (url: string, body: unknown) =>
  fetch(`${url}/v1/check`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });

describe("startServer", () => {
  it("listens on 127.0.0.1 by default and answers allow, deny and ask over a real socket", async () => {
    server = await startServer({ port: 0, policyRefs: ["mcp-tools"], engine: "compiled", logger: false });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const cases: [string, Record<string, unknown>, string][] = [
      ["filesystem.delete_file", { path: "/tmp/x.log" }, "allow"],
      ["filesystem.delete_file", { path: "/home/me/notes" }, "deny"],
      ["deploy.production", {}, "ask"],
    ];
    for (const [tool, args, verdict] of cases) {
      const res = await check(server.url, {
        policy: "mcp-tools",
        subject: { input: "", output: call(tool, args) },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Decision).verdict).toBe(verdict);
    }
    const stats = (await (await fetch(`${server.url}/v1/stats`)).json()) as {
      checks: Record<string, number>;
    };
    expect(stats.checks).toMatchObject({ total: 3, allow: 1, deny: 1, ask: 1 });
  });

  it("rejects a body whose declared length is over the limit with 413", async () => {
    server = await startServer({
      port: 0,
      policyRefs: ["mcp-tools"],
      engine: "compiled",
      logger: false,
      maxBodyBytes: 1024,
    });
    const body = JSON.stringify({ policy: "mcp-tools", subject: { input: "y".repeat(4096) } });
    const url = new URL(`${server.url}/v1/check`);
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
          timeout: 10_000,
        },
        (res) => {
          let data = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            data += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: data }));
        },
      );
      req.on("timeout", () => req.destroy(new Error("timed out")));
      req.on("error", (error) => {
        // The server may answer 413 and close before the whole body is sent.
        if ((error as NodeJS.ErrnoException).code !== "EPIPE") reject(error);
      });
      req.end(body);
    });
    expect(status).toBe(413);
    expect((JSON.parse(text) as ErrorBody).error.details?.reason).toBe("body-too-large");
  });

  it("reads an over-limit body to its end before the 413, so a client still sending gets the answer, not a reset", async () => {
    server = await startServer({
      port: 0,
      policyRefs: ["mcp-tools"],
      engine: "compiled",
      logger: false,
      maxBodyBytes: 1024,
    });
    const port = Number(new URL(server.url).port);
    // Without a bounded drain before the answer, the server closed the socket with bytes unread, and the
    // kernel answered the client's next write with a reset, which can drop the 413 on its way.
    const send = (head: string, pieces: Buffer[]) =>
      new Promise<{ answer: string; errors: string[] }>((resolve) => {
        // Half-open, as a client that goes on sending its body after the answer began to arrive.
        const socket = connect({ host: "127.0.0.1", port, allowHalfOpen: true });
        const errors: string[] = [];
        let answer = "";
        let sent = false;
        socket.setEncoding("latin1");
        socket.on("data", (d: string) => {
          if (!sent) errors.push("answered before the body was sent");
          answer += d;
        });
        socket.on("error", (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
        socket.on("close", () => resolve({ answer, errors }));
        socket.write(head);
        let i = 0;
        const next = () => {
          if (i === pieces.length) {
            socket.end();
            return;
          }
          const piece = pieces[i++] as Buffer;
          sent = i === pieces.length;
          socket.write(piece, (e) => {
            if (e) errors.push((e as NodeJS.ErrnoException).code ?? e.message);
            else setTimeout(next, 150);
          });
        };
        setTimeout(next, 15);
      });
    const pieces = Array.from({ length: 6 }, () => Buffer.alloc(16 * 1024, 0x20));
    const total = pieces.reduce((n, p) => n + p.length, 0);
    const declared = await send(
      `POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\nConnection: close\r\n\r\n`,
      pieces,
    );
    expect(declared.errors).toEqual([]);
    expect(declared.answer).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await send(
      `POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      [
        ...pieces.map((p) =>
          Buffer.concat([Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from("\r\n")]),
        ),
        Buffer.from("0\r\n\r\n"),
      ],
    );
    expect(chunked.errors).toEqual([]);
    expect(chunked.answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("serves a model engine and reports the model's calls in stats", async () => {
    const model = createScriptedModel({
      replies: [
        'Checked.\n```json\n{"label": 1, "violations": ["Deleting a repository is never allowed"]}\n```',
      ],
    });
    server = await startServer({
      port: 0,
      policyRefs: ["mcp-tools"],
      engine: "compiled",
      modelClient: model,
      store: ":memory:",
      logger: false,
    });
    const res = await check(server.url, {
      policy: "mcp-tools",
      engine: "baseline",
      subject: { input: "clean up", output: call("github.delete_repository", { repo: "a/b" }) },
    });
    expect(res.status).toBe(200);
    const d = (await res.json()) as Decision;
    expect(d).toMatchObject({ allowed: false, engine: "baseline" });
    expect(d.cost.llmCalls).toBe(1);
    const stats = (await (await fetch(`${server.url}/v1/stats`)).json()) as {
      llm: { calls: number };
      model: { id: string; calls: number };
      byEngine: Record<string, number>;
    };
    expect(stats.llm.calls).toBe(1);
    expect(stats.model).toMatchObject({ id: "scripted:model", calls: 1 });
    expect(stats.byEngine).toEqual({ baseline: 1 });
  });

  it("refuses to start with a model engine as default and no model", async () => {
    const error = await startServer({
      port: 0,
      policyRefs: ["mcp-tools"],
      engine: "guardagent",
      logger: false,
    }).catch((e: unknown) => e);
    expect(isWardenError(error) && error.code).toBe("MODEL_CONFIG");
  });

  it("refuses an unknown policy at start", async () => {
    const error = await startServer({ port: 0, policyRefs: ["no-such-policy"], logger: false }).catch(
      (e: unknown) => e,
    );
    expect(isWardenError(error) && error.code).toBe("POLICY_NOT_FOUND");
  });
});
