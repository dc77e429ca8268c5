/**
 * Red team, the HTTP face: what issue 10 found a web page or a slow client could do to `warden serve`.
 * Every case runs against the real server on 127.0.0.1 (port 0) with raw requests, so the headers are
 * the attacker's own: a rebound DNS name in Host, text/plain and form POSTs a page may send without a
 * preflight, a foreign Origin, a CORS preflight, bodies nested far deeper than anything legitimate,
 * clients that dribble their headers or open more connections than the cap, and callers without the key
 * or scope that policy contents and checks need. None of them may run a check or read a policy.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Caller } from "../../src/core/caller.js";
import type { Decision } from "../../src/core/decision.js";
import { openStore } from "../../src/runtime/default-store.js";
import type { KeyDirectory } from "../../src/server/authenticator.js";
import type { ErrorBody } from "../../src/server/http-status.js";
import { type RunningServer, type StartServerOptions, startServer } from "../../src/server/start-server.js";
import { createKeyDirectory, issueApiKey } from "../../src/store/key-directory.js";

let server: RunningServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

async function start(options: Partial<StartServerOptions> = {}): Promise<RunningServer> {
  server = await startServer({
    port: 0,
    policyRefs: ["mcp-tools", "eicu-ac"],
    engine: "compiled",
    logger: false,
    closeGraceMs: 100,
    ...options,
  });
  return server;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request with exactly the headers given (Host included), on its own connection. */
function raw(options: {
  port: number;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: options.port,
        method: options.method ?? "GET",
        path: options.path,
        headers: { host: `127.0.0.1:${options.port}`, ...options.headers },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer")));
    req.on("error", reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { "content-type": "application/json" };
const call = (name: string, args: unknown) =>
  JSON.stringify({ method: "tools/call", params: { name, arguments: args } });
const deleteHome = JSON.stringify({
  policy: "mcp-tools",
  subject: { input: "", output: call("filesystem.delete_file", { path: "/home/me" }) },
});

const errorOf = (answer: Answer) => (JSON.parse(answer.text) as ErrorBody).error;
const corsHeaders = (answer: Answer) =>
  Object.keys(answer.headers).filter((h) => h.startsWith("access-control-"));
const checksServed = async (port: number) =>
  (JSON.parse((await raw({ port, path: "/v1/stats" })).text) as { checks: { total: number } }).checks.total;

describe("red team: DNS rebinding (Host)", () => {
  it("answers no route, /healthz included, for a Host that does not name the service", async () => {
    const { port } = await start();
    for (const path of ["/v1/policies/mcp-tools", "/v1/policies", "/v1/stats", "/healthz"]) {
      for (const host of [
        `attacker.example:${port}`,
        "attacker.example",
        `127.0.0.1.attacker.example:${port}`,
      ]) {
        const answer = await raw({ port, path, headers: { host } });
        expect(answer.status, `${path} ${host}`).toBe(403);
        expect(errorOf(answer).details).toMatchObject({ reason: "host-not-allowed" });
        expect(answer.text).not.toContain("toolRules");
      }
    }
    const post = await raw({
      port,
      method: "POST",
      path: "/v1/check",
      headers: { ...JSON_TYPE, host: `rebound.example:${port}` },
      body: deleteHome,
    });
    expect(post.status).toBe(403);
    expect(await checksServed(port)).toBe(0);
  });

  it("refuses an absolute-form target naming another host even with a loopback Host header", async () => {
    const { port } = await start();
    const answer = await raw({ port, path: "http://attacker.example/v1/stats" });
    expect(answer.status).toBe(403);
  });

  it("answers loopback names with any port, added names, and any Host only when told *", async () => {
    const { port } = await start({ allowedHosts: ["warden.internal"] });
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "LOCALHOST",
      "warden.internal:443",
    ]) {
      expect((await raw({ port, path: "/healthz", headers: { host } })).status, host).toBe(200);
    }
    await server?.close();
    const open = await start({ allowedHosts: ["*"] });
    expect(
      (await raw({ port: open.port, path: "/healthz", headers: { host: "anything.example" } })).status,
    ).toBe(200);
  });
});

describe("red team: the service's own origin", () => {
  it("admits its own page's requests, but not a rebound page's when any Host is answered (*)", async () => {
    const { port } = await start();
    const own = await raw({
      port,
      method: "POST",
      path: "/v1/check",
      headers: { ...JSON_TYPE, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` },
      body: deleteHome,
    });
    expect(own.status).toBe(200);
    await server?.close();
    // With --allowed-host '*' the Host check is off, so a page whose DNS name was rebound to the
    // service arrives with Host and Origin naming itself: its origin must still be foreign.
    const open = await start({ allowedHosts: ["*"] });
    const rebound = await raw({
      port: open.port,
      method: "POST",
      path: "/v1/check",
      headers: {
        ...JSON_TYPE,
        host: `rebound.example:${open.port}`,
        origin: `http://rebound.example:${open.port}`,
      },
      body: deleteHome,
    });
    expect(rebound.status).toBe(403);
    expect(errorOf(rebound).details).toMatchObject({ reason: "origin-not-allowed" });
    expect(await checksServed(open.port)).toBe(0);
  });
});

describe("red team: requests a web page can send without a preflight", () => {
  it("refuses text/plain, form and untyped POSTs with 415 naming application/json, and runs no check", async () => {
    const { port } = await start();
    const types = [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      undefined,
    ];
    for (const type of types) {
      const answer = await raw({
        port,
        method: "POST",
        path: "/v1/check",
        headers: type === undefined ? {} : { "content-type": type },
        body: deleteHome,
      });
      expect(answer.status, String(type)).toBe(415);
      expect(errorOf(answer).message).toContain("application/json");
      expect(errorOf(answer).details).toMatchObject({ reason: "unsupported-media-type" });
    }
    expect(await checksServed(port)).toBe(0);
    const json = await raw({
      port,
      method: "POST",
      path: "/v1/check",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: deleteHome,
    });
    expect(json.status).toBe(200);
    expect((JSON.parse(json.text) as Decision).allowed).toBe(false);
  });

  it("refuses any request a browser sends for a foreign page (Origin, or Sec-Fetch-Site), with no CORS header", async () => {
    const { port } = await start();
    const foreign: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: `http://127.0.0.1:${port + 1}` },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of foreign) {
      for (const [method, path] of [
        ["POST", "/v1/check"],
        ["GET", "/v1/stats"],
        ["GET", "/v1/policies"],
      ] as const) {
        const answer = await raw({
          port,
          method,
          path,
          headers: { ...JSON_TYPE, ...headers },
          body: method === "POST" ? deleteHome : undefined,
        });
        expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(errorOf(answer).details).toMatchObject({ reason: "origin-not-allowed" });
        expect(corsHeaders(answer)).toEqual([]);
      }
    }
    expect(await checksServed(port)).toBe(0);
  });

  it("refuses a CORS preflight unless the origin was configured, and then answers only that origin", async () => {
    const { port } = await start();
    const preflight = (origin: string) =>
      raw({
        port,
        method: "OPTIONS",
        path: "/v1/check",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
    const closed = await preflight("https://console.example");
    expect(closed.status).toBe(403);
    expect(corsHeaders(closed)).toEqual([]);
    await server?.close();

    const configured = await start({ corsOrigins: ["https://console.example"] });
    const allowed = await raw({
      port: configured.port,
      method: "OPTIONS",
      path: "/v1/check",
      headers: { origin: "https://console.example", "access-control-request-method": "POST" },
    });
    expect(allowed.status).toBe(204);
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://console.example");
    expect(allowed.headers["access-control-allow-headers"]).toContain("Content-Type");
    const check = await raw({
      port: configured.port,
      method: "POST",
      path: "/v1/check",
      headers: { ...JSON_TYPE, origin: "https://console.example" },
      body: deleteHome,
    });
    expect(check.status).toBe(200);
    expect(check.headers["access-control-allow-origin"]).toBe("https://console.example");
    const other = await raw({
      port: configured.port,
      method: "OPTIONS",
      path: "/v1/check",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(other.status).toBe(403);
    expect(corsHeaders(other)).toEqual([]);
  });
});

/** `levels` arrays nested inside one another, written without recursion. */
const nestedArrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
/** `levels` objects nested under key `a`. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("red team: deep JSON", () => {
  it("answers tool arguments nested 8 000 levels with 400 naming the field and the limit", async () => {
    const { port } = await start();
    const body = `{"policy":"mcp-tools","subject":{"input":"","context":{"toolCall":{"name":"x","args":${nestedObjects(8000)}}}}}`;
    const answer = await raw({ port, method: "POST", path: "/v1/check", headers: JSON_TYPE, body });
    expect(answer.status).toBe(400);
    const error = errorOf(answer);
    expect(error.details).toMatchObject({ reason: "too-deep", limit: 64 });
    expect(error.message).toContain("subject.context.toolCall.args");
    expect(error.message).toContain("64");
    expect(await checksServed(port)).toBe(0);
  });

  it("answers a 200 000-deep array anywhere in the body with 400, and one inside the output text without a 500", async () => {
    const { port } = await start();
    const inContext = `{"policy":"mcp-tools","subject":{"input":"","context":{"x":${nestedArrays(200_000)}}}}`;
    const context = await raw({
      port,
      method: "POST",
      path: "/v1/check",
      headers: JSON_TYPE,
      body: inContext,
    });
    expect(context.status).toBe(400);
    expect(errorOf(context).details).toMatchObject({ reason: "too-deep" });

    const deepCall = `{"method":"tools/call","params":{"name":"filesystem.delete_file","arguments":{"path":"/home/me","x":${nestedArrays(200_000)}}}}`;
    const inOutput = JSON.stringify({ policy: "mcp-tools", subject: { input: "", output: deepCall } });
    const output = await raw({ port, method: "POST", path: "/v1/check", headers: JSON_TYPE, body: inOutput });
    expect(output.status).not.toBe(500);
    if (output.status === 200) expect((JSON.parse(output.text) as Decision).allowed).toBe(false);
    else expect(output.status).toBe(400);
    expect((await raw({ port, path: "/healthz" })).status).toBe(200);
  }, 60_000);

  it("honours a configured depth limit", async () => {
    const { port } = await start({ maxJsonDepth: 8 });
    const body = JSON.stringify({
      policy: "mcp-tools",
      subject: { input: "", context: { toolCall: { name: "x", args: { a: { b: { c: { d: {} } } } } } } },
    });
    const answer = await raw({ port, method: "POST", path: "/v1/check", headers: JSON_TYPE, body });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).details).toMatchObject({
      reason: "too-deep",
      limit: 8,
      fields: ["subject.context.toolCall.args.a.b.c.d"],
    });
  });
});

/** Opens a raw connection; resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", () => undefined);
    socket.once("error", reject);
    sockets.push(socket);
  });
}

/** Resolves with what the server sent once it closed the connection (or after `withinMs`, as "open"). */
function untilClosed(socket: Socket, withinMs: number): Promise<{ closed: boolean; received: string }> {
  return new Promise((resolve) => {
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    const timer = setTimeout(() => resolve({ closed: false, received }), withinMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ closed: true, received });
    });
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes or the text runs out. */
function dribble(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++] as string);
  }, everyMs);
}

describe("red team: slow and numerous clients", () => {
  it("closes clients that dribble their headers or body, or send nothing, and keeps serving others", async () => {
    const { port } = await start({
      connectionLimits: {
        headersTimeoutMs: 300,
        requestTimeoutMs: 600,
        keepAliveTimeoutMs: 300,
        idleTimeoutMs: 5_000,
      },
    });
    const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Pad: ${"a".repeat(10_000)}\r\n\r\n`;
    const slowHeaders = await Promise.all(Array.from({ length: 20 }, () => open(port)));
    for (const socket of slowHeaders) dribble(socket, headers, 20);
    const silent = await open(port);
    const slowBody = await open(port);
    slowBody.write(
      `POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n`,
    );
    dribble(slowBody, deleteHome.padEnd(5000, " "), 20);
    const outcomes = await Promise.all([...slowHeaders, silent, slowBody].map((s) => untilClosed(s, 15_000)));
    expect(outcomes.every((o) => o.closed)).toBe(true);
    // Node answers the ones it cuts for their headers 408 (Request Timeout) before closing.
    expect(outcomes.slice(0, 21).every((o) => o.received.startsWith("HTTP/1.1 408"))).toBe(true);
    // The slow body never reached a check.
    expect(await checksServed(port)).toBe(0);
    expect((await raw({ port, path: "/healthz" })).status).toBe(200);
  }, 30_000);

  it("closes connections beyond the cap on arrival while clients within it are served", async () => {
    const { port } = await start({ connectionLimits: { maxConnections: 4, headersTimeoutMs: 10_000 } });
    const client = await open(port);
    const healthz = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;
    const answered = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let text = "";
        const onData = (chunk: Buffer) => {
          text += chunk.toString("utf8");
          if (text.includes('"status":"ok"')) {
            socket.off("data", onData);
            resolve(text);
          }
        };
        socket.on("data", onData);
      });
    const first = answered(client);
    client.write(healthz);
    expect(await first).toContain("200 OK");
    const held = await Promise.all([open(port), open(port), open(port)]);
    const beyond = await open(port);
    const refused = await untilClosed(beyond, 5_000);
    expect(refused).toEqual({ closed: true, received: "" });
    const again = answered(client);
    client.write(healthz);
    expect(await again).toContain("200 OK");
    for (const socket of held) socket.destroy();
    // Once the held connections are gone, newcomers are served again (the server notices the closes).
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = await raw({ port, path: "/healthz" }).then(
        (a) => a.status,
        () => 0,
      );
      if (status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  }, 30_000);
});

/** A key directory in memory, implementing what the store's directory offers. */
function memoryKeys(keys: Record<string, Caller>): KeyDirectory {
  return {
    authenticate: async ({ token }) => (Object.hasOwn(keys, token) ? keys[token] : undefined),
    hasKeys: async () => Object.keys(keys).length > 0,
  };
}

describe("red team: policy contents and API keys", () => {
  it("serves whole policies to no anonymous caller unless the operator exposes them", async () => {
    const { port } = await start();
    const hidden = await raw({ port, path: "/v1/policies/mcp-tools" });
    expect(hidden.status).toBe(403);
    expect(errorOf(hidden).message).toContain("policies:read");
    expect(hidden.text).not.toContain("toolRules");
    const list = await raw({ port, path: "/v1/policies" });
    expect(list.status).toBe(200);
    expect(list.text).toContain('"mcp-tools"');
    await server?.close();
    const exposed = await start({ exposePolicies: true });
    const served = await raw({ port: exposed.port, path: "/v1/policies/mcp-tools" });
    expect(served.status).toBe(200);
    expect(served.text).toContain("toolRules");
  });

  it("with keys, answers 401 without a valid key and 403 for a policy or scope the key lacks", async () => {
    const { port } = await start({
      keys: memoryKeys({
        "k-agent": { name: "agent", scopes: ["check"], policies: ["mcp-tools"] },
        "k-admin": { name: "admin", scopes: ["check", "policies:read"] },
        "k-reader": { name: "reader", scopes: ["policies:read"] },
      }),
      exposePolicies: true,
    });
    const as = (key: string | undefined, path: string, body?: string) =>
      raw({
        port,
        path,
        method: body === undefined ? "GET" : "POST",
        headers: { ...JSON_TYPE, ...(key === undefined ? {} : { authorization: key }) },
        ...(body !== undefined ? { body } : {}),
      });
    for (const key of [undefined, "Bearer nope", "Basic k-agent", "k-agent", "Bearer "]) {
      for (const [path, body] of [
        ["/v1/check", deleteHome],
        ["/v1/stats"],
        ["/v1/policies"],
        ["/v1/policies/mcp-tools"],
      ] as const) {
        const answer = await as(key, path, body);
        expect(answer.status, `${key} ${path}`).toBe(401);
        expect(answer.headers["www-authenticate"]).toContain("Bearer");
      }
    }
    expect((await as(undefined, "/healthz")).status).toBe(200);
    const stats = JSON.parse((await as("Bearer k-admin", "/v1/stats")).text) as { checks: { total: number } };
    expect(stats.checks.total).toBe(0);

    const allowed = await as("Bearer k-agent", "/v1/check", deleteHome);
    expect(allowed.status).toBe(200);
    const otherPolicy = await as(
      "Bearer k-agent",
      "/v1/check",
      deleteHome.replace('"mcp-tools"', '"eicu-ac"'),
    );
    expect(otherPolicy.status).toBe(403);
    expect(errorOf(otherPolicy).details).toMatchObject({ reason: "forbidden", policy: "eicu-ac" });
    const contents = await as("Bearer k-agent", "/v1/policies/mcp-tools");
    expect(contents.status).toBe(403);
    expect(errorOf(contents).message).toContain("policies:read");
    const list = JSON.parse((await as("bearer k-agent", "/v1/policies")).text) as {
      policies: { name: string }[];
    };
    expect(list.policies.map((p) => p.name)).toEqual(["mcp-tools"]);

    expect((await as("Bearer k-admin", "/v1/policies/eicu-ac")).status).toBe(200);
    const readerCheck = await as("Bearer k-reader", "/v1/check", deleteHome);
    expect(readerCheck.status).toBe(403);
    expect(errorOf(readerCheck).details).toMatchObject({ reason: "forbidden", scope: "check" });
  });

  it("takes keys from the store's own key directory, and stays closed once its only key is revoked", async () => {
    const store = await openStore({ path: ":memory:" });
    try {
      const { token } = await issueApiKey({ store, name: "agent", scopes: ["check"] });
      const { port } = await start({ keys: createKeyDirectory({ store }) });
      const check = (headers: Record<string, string>) =>
        raw({
          port,
          method: "POST",
          path: "/v1/check",
          headers: { ...JSON_TYPE, ...headers },
          body: deleteHome,
        });
      expect((await check({})).status).toBe(401);
      expect((await check({ authorization: `Bearer ${token}x` })).status).toBe(401);
      expect((await check({ authorization: `Bearer ${token}` })).status).toBe(200);
      await store.revokeApiKey({ name: "agent" });
      expect((await check({ authorization: `Bearer ${token}` })).status).toBe(401);
      expect((await check({})).status).toBe(401);
    } finally {
      await server?.close();
      server = undefined;
      await store.close();
    }
  });

  it("with an empty key directory, callers are anonymous but a key that is sent must be valid", async () => {
    const { port } = await start({ keys: memoryKeys({}) });
    expect(
      (await raw({ port, method: "POST", path: "/v1/check", headers: JSON_TYPE, body: deleteHome })).status,
    ).toBe(200);
    const bad = await raw({ port, path: "/v1/stats", headers: { authorization: "Bearer guessed" } });
    expect(bad.status).toBe(401);
    expect((await raw({ port, path: "/v1/policies/mcp-tools" })).status).toBe(403);
  });
});
