import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, WardenError } from "../core/errors.js";
import { MCP_ERROR_CODE_BY_WARDEN_CODE, toMcpError } from "./mcp-errors.js";

describe("toMcpError", () => {
  it("maps every Warden code, keeping the plain message and the Warden code in data", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ERROR_CODES.filter((c) => c !== "INTERNAL")),
        fc.string(),
        (code, message) => {
          const error = toMcpError({ error: new WardenError({ code, message }) });
          expect(error.code).toBe(MCP_ERROR_CODE_BY_WARDEN_CODE[code]);
          expect(error.message).toBe(message);
          expect(error.data).toEqual({ wardenCode: code });
        },
      ),
    );
  });

  it("never passes on the message of an internal or foreign error", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string().map((m) => new Error(m)),
          fc.anything(),
        ),
        (thrown) => {
          const error = toMcpError({ error: thrown });
          expect(error.code).toBe(ErrorCode.InternalError);
          expect(error.message).toBe("internal error");
        },
      ),
    );
    const internal = toMcpError({ error: new WardenError({ code: "INTERNAL", message: "at /srv/x.js:1" }) });
    expect(internal.message).toBe("internal error");
  });

  it("keeps an MCP error's code, data and message (without the SDK's prefix)", () => {
    const upstream = new McpError(ErrorCode.InvalidParams, "Tool x not found", { hint: 1 });
    const error = toMcpError({ error: upstream });
    expect(error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: "Tool x not found",
      data: { hint: 1 },
    });
  });
});
