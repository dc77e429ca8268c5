/**
 * Limits on the Node HTTP server's connections, so slow or numerous clients cannot hold the service: a
 * client must finish its headers within `headersTimeoutMs` and its whole request within
 * `requestTimeoutMs` (Node answers 408 and closes; sending a byte now and then does not help), an idle
 * kept-alive connection closes after `keepAliveTimeoutMs`, a connection that stays silent for
 * `idleTimeoutMs` while no check is running for it (a client that does not read its answer) is cut, and
 * connections beyond `maxConnections` are closed as they arrive. A check that is still being computed is
 * bounded by the guard's own check time limit, not by these.
 */
import type { Server, ServerOptions, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { z } from "zod";
import { parseWith } from "../core/validate.js";

const Ms = z.number().int().positive().max(2_147_483_647);

export const SocketLimitsSchema = z.object({
  /** Time to receive a request's headers, from its first byte (or from the connection's opening). */
  headersTimeoutMs: Ms.default(10_000),
  /** Time to receive a whole request, body included (1 MiB in 30 s is ~35 KB/s). */
  requestTimeoutMs: Ms.default(30_000),
  /** How long a kept-alive connection waits for its next request. */
  keepAliveTimeoutMs: Ms.default(5_000),
  /** How long a connection may stay silent when no check is being computed for it. */
  idleTimeoutMs: Ms.default(30_000),
  /** Open connections at most; more are closed on arrival. */
  maxConnections: z.number().int().positive().max(1_000_000).default(256),
});
export type SocketLimits = z.output<typeof SocketLimitsSchema>;
export type SocketLimitsInput = z.input<typeof SocketLimitsSchema>;

export function socketLimitsFrom(options: { limits?: SocketLimitsInput }): SocketLimits {
  return parseWith({ schema: SocketLimitsSchema, value: options.limits ?? {}, what: "connection limits" });
}

/** The options Node needs when creating the server (timeouts are checked every interval, not per byte). */
export function serverOptionsFor(options: { limits: SocketLimits }): ServerOptions {
  const { limits } = options;
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the header and request limits on this interval (default 30 s, too coarse for short ones).
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(shortest / 4))),
  };
}

/** Sets the connection cap and the idle timeout on a created server. */
export function applySocketLimits(options: { server: Server; limits: SocketLimits }): void {
  const { server, limits } = options;
  server.maxConnections = limits.maxConnections;
  const answering = new WeakMap<Socket, ServerResponse>();
  server.on("request", (req, res) => answering.set(req.socket, res));
  server.setTimeout(limits.idleTimeoutMs);
  // With a listener, Node leaves the decision to us: a response still being computed is the check's
  // time limit's business; anything else silent that long is cut.
  server.on("timeout", (socket: Socket) => {
    const res = answering.get(socket);
    if (res && !res.headersSent && !res.writableEnded) return;
    socket.destroy();
  });
}
