/**
 * A transport seen through a filter: every message that arrives is first offered to `intercept`, and only
 * what it declines reaches whoever listens (the SDK's Server or Client). The guard proxy relays its hot
 * path, `tools/call`, itself — one check, the request forwarded as it came and the answer as it comes —
 * instead of sending every call through a full SDK Server and Client pair (a request object, an abort
 * controller, a timeout and a schema validation on each side, both ways), which cost more CPU than the
 * check; everything else still goes through the SDK as before.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export function interceptTransport(options: {
  transport: Transport;
  /** True when the message was handled and must not be passed on. */
  intercept: (message: JSONRPCMessage) => boolean;
}): Transport {
  const { transport, intercept } = options;
  let listener: Transport["onmessage"];
  return {
    start: () => transport.start(),
    send: (message, sendOptions) => transport.send(message, sendOptions),
    close: () => transport.close(),
    get onmessage() {
      return listener;
    },
    set onmessage(handler) {
      listener = handler;
      transport.onmessage = handler
        ? (message, extra) => {
            if (!intercept(message)) handler(message, extra);
          }
        : undefined;
    },
    get onclose() {
      return transport.onclose;
    },
    set onclose(handler) {
      transport.onclose = handler;
    },
    get onerror() {
      return transport.onerror;
    },
    set onerror(handler) {
      transport.onerror = handler;
    },
    get sessionId() {
      return transport.sessionId;
    },
    setProtocolVersion: (version: string) => transport.setProtocolVersion?.(version),
  };
}
