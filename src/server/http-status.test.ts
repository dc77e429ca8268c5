import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, toWardenError, WardenError } from "../core/errors.js";
import { HTTP_STATUS_BY_CODE, httpErrorFor } from "./http-status.js";

describe("httpErrorFor", () => {
  it("gives every error code a 4xx or 5xx status", () => {
    for (const code of ERROR_CODES) {
      const status = HTTP_STATUS_BY_CODE[code];
      expect(status >= 400 && status < 600).toBe(true);
    }
  });

  it("keeps the code and message of a WardenError and never leaks an internal one's", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ERROR_CODES), fc.string(), (code, message) => {
        const { status, body } = httpErrorFor({
          error: new WardenError({ code, message, details: { x: 1 } }),
        });
        expect(status).toBe(HTTP_STATUS_BY_CODE[code]);
        expect(body.error.code).toBe(code);
        if (code === "INTERNAL") expect(body.error).toEqual({ code, message: "internal error" });
        else expect(body.error).toEqual({ code, message, details: { x: 1 } });
      }),
    );
  });

  it("answers anything else with a generic 500", () => {
    fc.assert(
      fc.property(fc.anything(), (thrown) => {
        expect(httpErrorFor({ error: thrown })).toEqual({
          status: 500,
          body: { error: { code: "INTERNAL", message: "internal error" } },
        });
      }),
    );
  });

  it("lets the HTTP layer's own reasons pick 413 and 404", () => {
    const tooLarge = new WardenError({
      code: "INVALID_INPUT",
      message: "big",
      details: { reason: "body-too-large" },
    });
    const noRoute = new WardenError({
      code: "INVALID_INPUT",
      message: "no",
      details: { reason: "route-not-found" },
    });
    const other = new WardenError({ code: "INVALID_INPUT", message: "no", details: { reason: "toString" } });
    expect(httpErrorFor({ error: tooLarge }).status).toBe(413);
    expect(httpErrorFor({ error: noRoute }).status).toBe(404);
    expect(httpErrorFor({ error: other }).status).toBe(400);
  });
});

describe("httpErrorFor, conditions of the HTTP layer", () => {
  it("maps each reason to its status, and a RangeError (thrown or wrapped) to 400 instead of 500", () => {
    const reasons: [string, number][] = [
      ["unauthorized", 401],
      ["forbidden", 403],
      ["host-not-allowed", 403],
      ["origin-not-allowed", 403],
      ["unsupported-media-type", 415],
      ["too-deep", 400],
    ];
    for (const [reason, status] of reasons) {
      const error = new WardenError({ code: "INVALID_INPUT", message: "m", details: { reason } });
      expect(httpErrorFor({ error }).status, reason).toBe(status);
    }
    const overflow = new RangeError("Maximum call stack size exceeded");
    for (const error of [overflow, toWardenError({ error: overflow })]) {
      const { status, body } = httpErrorFor({ error });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: "INVALID_INPUT", details: { reason: "too-deep" } });
    }
  });
});
