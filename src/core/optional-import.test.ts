import { describe, expect, it } from "vitest";
import { WardenError } from "./errors.js";
import { importOptional, installCommand, missingDependency } from "./optional-import.js";

/** What Node throws for `import("pkg")` when pkg is not installed. */
function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/x.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

describe("importOptional", () => {
  it("returns the module when it loads", async () => {
    const module = await importOptional({
      packageName: "x",
      feature: "X things",
      load: async () => ({ a: 1 }),
    });
    expect(module).toEqual({ a: 1 });
  });

  it("turns an absent package into MISSING_DEPENDENCY naming it and the install command", async () => {
    const error = await importOptional({
      packageName: "@ai-sdk/openai",
      feature: "openai: models",
      companions: ["ai"],
      load: () => Promise.reject(notFound("@ai-sdk/openai")),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WardenError);
    expect(error).toMatchObject({
      code: "MISSING_DEPENDENCY",
      details: { package: "@ai-sdk/openai", install: "npm install ai @ai-sdk/openai" },
    });
    expect((error as Error).message).toBe(
      'openai: models need the optional package @ai-sdk/openai, which is not installed: run "npm install ai @ai-sdk/openai"',
    );
  });

  it("says a package that is there but fails to load is broken, with the reason", () => {
    const error = missingDependency({
      packageName: "node-llama-cpp",
      feature: "local: models",
      cause: new Error("libllama.so: cannot open shared object file"),
    });
    expect(error.code).toBe("MISSING_DEPENDENCY");
    expect(error.message).toContain("installed but could not be loaded (libllama.so");
    expect(error.message).toContain('"npm install node-llama-cpp"');
  });

  it("does not call a package absent when only one of its own imports is missing", () => {
    const error = missingDependency({
      packageName: "pg",
      feature: "PostgreSQL stores",
      cause: notFound("pg-pool"),
    });
    expect(error.message).toContain("installed but could not be loaded");
  });

  it("names companions before the package", () => {
    expect(installCommand({ packageName: "b", companions: ["a"] })).toBe("npm install a b");
    expect(installCommand({ packageName: "pg" })).toBe("npm install pg");
  });
});
