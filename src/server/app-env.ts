/**
 * The Hono environment every route module of the HTTP service shares: under @hono/node-server the app
 * also gets Node's request and response; the defences set the caller and the header reader.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Caller } from "../core/caller.js";
import type { HeaderReader } from "./request-headers.js";
import type { RequestLogVariables } from "./request-log.js";

export type AppEnv = {
  Bindings: { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  Variables: RequestLogVariables & { caller: Caller; header: HeaderReader };
};
