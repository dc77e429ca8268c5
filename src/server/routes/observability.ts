/**
 * `GET /metrics` (Prometheus, ../metrics.ts) and `GET /openapi.json` (../openapi.ts), for any
 * authenticated caller, like /v1/stats. The OpenAPI document is built on its first request, by a module
 * loaded then; metrics exist only when the server was given them (`warden serve` always is).
 */
import type { Hono } from "hono";
import { WardenError } from "../../core/errors.js";
import type { AppEnv } from "../app-env.js";
import type { WardenMetrics } from "../metrics.js";

export function useObservabilityRoutes(options: { app: Hono<AppEnv>; metrics?: WardenMetrics }): void {
  const { app, metrics } = options;
  let document: Promise<string> | undefined;

  app.get("/metrics", async (c) => {
    if (!metrics) {
      throw new WardenError({
        code: "UNSUPPORTED",
        message: "this server keeps no metrics (createWardenApp without `metrics`; `warden serve` has them)",
      });
    }
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { "Content-Type": contentType });
  });

  app.get("/openapi.json", async (c) => {
    document ??= import("../openapi.js").then(({ buildOpenApiDocument }) =>
      JSON.stringify(buildOpenApiDocument()),
    );
    return c.body(await document, 200, { "Content-Type": "application/json; charset=utf-8" });
  });
}
