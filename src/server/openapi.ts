/**
 * The OpenAPI 3.1 document of the HTTP service, generated from the route catalog (./route-catalog.ts)
 * and the zod schemas the routes validate with (zod's own `z.toJSONSchema`, whose draft 2020-12 output is
 * OpenAPI 3.1's schema dialect). Each named schema goes to components.schemas; definitions a schema
 * carries (`$defs`, for recursive JSON values) move there too, under the schema's name, and their
 * references are rewritten to match. Loaded by the `/openapi.json` route on first request only.
 */
import { z } from "zod";
import { ROUTE_CATALOG, type RouteDoc } from "./route-catalog.js";

type Json = Record<string, unknown>;

export function buildOpenApiDocument(
  options: { routes?: readonly RouteDoc[]; version?: string; title?: string } = {},
): Json {
  const routes = options.routes ?? ROUTE_CATALOG;
  const schemas: Json = {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: { type: "string", description: "A Warden error code (src/core/errors.ts)." },
            message: { type: "string" },
            details: { type: "object", description: "`reason` picks the status; `fields` names the fields." },
          },
        },
      },
    },
  };
  const schemaRef = (schema: z.ZodType, name: string, io: "input" | "output"): Json => {
    if (!(name in schemas)) schemas[name] = componentSchema({ schema, name, io, into: schemas });
    return { $ref: `#/components/schemas/${name}` };
  };
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
    const parameters = [
      ...[...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      ...Object.entries(route.query ?? {}).map(([name, description]) => ({
        name,
        in: "query",
        required: false,
        description,
        schema: { type: "string" },
      })),
    ];
    const response =
      route.response instanceof z.ZodType
        ? {
            description: "OK",
            content: {
              "application/json": {
                schema: schemaRef(
                  route.response,
                  route.names?.response ?? anonymousName(route, "Response"),
                  "output",
                ),
              },
            },
          }
        : {
            description: route.response.description,
            content: { [route.response.mediaType]: { schema: {} } },
          };
    const operation: Json = {
      summary: route.summary,
      ...(route.scopes ? { description: `Needs one of the scopes: ${route.scopes.join(", ")}.` } : {}),
      security: route.public ? [] : [{ bearer: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: schemaRef(
                    route.body,
                    route.names?.body ?? anonymousName(route, "Request"),
                    "input",
                  ),
                },
              },
            },
          }
        : {}),
      responses: {
        [String(route.status ?? 200)]: response,
        ...(route.public
          ? {}
          : {
              "401": errorResponse("No API key, or an unknown or revoked one."),
              "403": errorResponse("The key lacks the scope, or may not use the policy."),
              "429": {
                ...errorResponse("Over the key's rate limit."),
                headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait." } },
              },
            }),
        default: errorResponse("An error (the code says which; see src/server/http-status.ts)."),
      },
    };
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operation };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: options.title ?? "Warden HTTP API",
      version: options.version ?? "1",
      description:
        "Guard checks for LLM agents. Once any API key exists, every route but /healthz needs Authorization: Bearer <key>.",
    },
    paths,
    components: { schemas, securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
  };
}

function errorResponse(description: string): Json {
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
}

function anonymousName(route: RouteDoc, suffix: string): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  return `${route.method}${words.map((w) => w[0]?.toUpperCase() + w.slice(1)).join("")}${suffix}`;
}

/** The schema as a component; its `$defs` become sibling components named after it. */
function componentSchema(options: {
  schema: z.ZodType;
  name: string;
  io: "input" | "output";
  into: Json;
}): Json {
  const {
    $schema: _dialect,
    $defs,
    ...json
  } = z.toJSONSchema(options.schema, {
    io: options.io,
    unrepresentable: "any",
  }) as Json & { $defs?: Json };
  const rename = (def: string) => `${options.name}_${def}`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] =
        key === "$ref" && typeof inner === "string" && inner.startsWith("#/$defs/")
          ? `#/components/schemas/${rename(inner.slice("#/$defs/".length))}`
          : key === "$ref" && inner === "#"
            ? `#/components/schemas/${options.name}`
            : rewrite(inner);
    }
    return out;
  };
  for (const [def, schema] of Object.entries($defs ?? {})) options.into[rename(def)] = rewrite(schema);
  return rewrite(json) as Json;
}
