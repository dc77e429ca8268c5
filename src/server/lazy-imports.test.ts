/**
 * prom-client and the OpenAPI generator load only when a server needs them (`warden check` and `hook`
 * start on every agent action, and the library root must stay light): walking the static value imports
 * (type-only imports and `import()` left out) from the CLI's entry, the check and hook commands, the
 * library root and warden/server, no module imports prom-client and ./openapi.ts is never reached.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** The modules `file` imports for their values when it loads: relative ones as paths, packages as names. */
function staticValueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const node of source.statements) {
    let specifier: string | undefined;
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      if (!typeOnly) specifier = (node.moduleSpecifier as ts.StringLiteral).text;
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      specifier = (node.moduleSpecifier as ts.StringLiteral).text;
    }
    if (specifier === undefined) continue;
    out.push(specifier.startsWith(".") ? resolve(file, "..", specifier.replace(/\.js$/, ".ts")) : specifier);
  }
  return out;
}

function reachable(entries: readonly string[]): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const queue = entries.map((e) => join(ROOT, e));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (files.has(file) || !existsSync(file)) continue;
    files.add(file);
    for (const target of staticValueImports(file)) {
      if (target.startsWith("/")) queue.push(target);
      else if (!packages.has(target)) packages.set(target, relative(ROOT, file));
    }
  }
  return { files, packages };
}

describe("what a check loads", () => {
  it("never loads prom-client or the OpenAPI generator before a server starts", () => {
    const { files, packages } = reachable([
      "src/cli/main.ts",
      "src/cli/commands/check.ts",
      "src/cli/commands/hook.ts",
      "src/index.ts",
      "src/server/index.ts",
    ]);
    expect(files.size).toBeGreaterThan(20);
    // The walk does reach the server and its metrics module (which imports prom-client's types only).
    expect(files.has(join(ROOT, "src/server/start-server.ts"))).toBe(true);
    expect(files.has(join(ROOT, "src/server/metrics.ts"))).toBe(true);
    expect(packages.get("prom-client"), "prom-client imported statically by").toBeUndefined();
    expect(files.has(join(ROOT, "src/server/openapi.ts"))).toBe(false);
  });

  it("does load them from the places that start a server (the walk would see a regression)", () => {
    const source = readFileSync(join(ROOT, "src/server/start-server.ts"), "utf8");
    expect(source).toContain('import("./metrics.js")');
    expect(readFileSync(join(ROOT, "src/server/routes/observability.ts"), "utf8")).toContain(
      'import("../openapi.js")',
    );
  });
});
