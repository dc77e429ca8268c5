/**
 * The layering rules, checked on the import graph of the published source (src/, tests left out): lower
 * layers (engines and everything they stand on) never import the faces or the benchmark harness, nothing
 * published imports the checkout's bench/ or test/ (generators and fixtures stay out of the package), and
 * no module imports itself through a cycle. The graph comes from TypeScript's own pre-processor, so the
 * rules see exactly the specifiers the compiler sees, without type-checking anything.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "src");

/** Layers that everything else stands on: they may import one another, never a face or the harness. */
const LOWER = [
  "engines",
  "core",
  "runtime",
  "llm",
  "memory",
  "store",
  "sandbox",
  "toolbox",
  "policies",
  "util",
];
/** The faces and the benchmark harness: they sit on top. */
const UPPER = ["bench", "cli", "server", "mcp", "demo", "integrations"];

function productionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...productionFiles(path));
    else if (/\.ts$/.test(entry.name) && !/\.test\.ts$|\.test-support\.ts$|\.fixture\.ts$/.test(entry.name))
      out.push(path);
  }
  return out;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of productionFiles(SRC)) {
    const text = readFileSync(file, "utf8");
    const info = ts.preProcessFile(text, true, true);
    const edges: string[] = [];
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const target = resolve(file, "..", ref.fileName.replace(/\.js$/, ".ts"));
      edges.push(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), edges);
  }
  return graph;
}

function layerOf(path: string): string | undefined {
  const m = /^src\/([^/]+)\//.exec(path.split("\\").join("/"));
  return m?.[1];
}

/**
 * Cycles found by a depth-first walk (at least one wherever there is any), each as the path that closes
 * it.
 */
function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      // Type-only imports count too: a cycle of types is still two modules that cannot be understood,
      // moved or tested one without the other.
      if (!graph.has(to)) continue;
      const s = state.get(to);
      if (s === "open") cycles.push([...stack.slice(stack.indexOf(to)), to]);
      else if (s === undefined) visit(to);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("architecture", () => {
  const graph = importGraph();

  it("reads the source tree", () => {
    expect(graph.size).toBeGreaterThan(100);
  });

  it("lower layers never import the faces or the benchmark harness", () => {
    const offences: string[] = [];
    for (const [from, edges] of graph) {
      if (!LOWER.includes(layerOf(from) ?? "")) continue;
      for (const to of edges) {
        if (UPPER.includes(layerOf(to) ?? "")) offences.push(`${from} -> ${to}`);
      }
    }
    expect(offences, `lower layers importing upper ones:\n${offences.join("\n")}`).toEqual([]);
  });

  it("published modules never import the checkout's bench/ or test/ (generators and fixtures stay out)", () => {
    const offences: string[] = [];
    for (const [from, edges] of graph) {
      for (const to of edges)
        if (!to.split("\\").join("/").startsWith("src/")) offences.push(`${from} -> ${to}`);
    }
    expect(offences, `src/ importing outside src/:\n${offences.join("\n")}`).toEqual([]);
  });

  it("has no import cycles", () => {
    const cycles = findCycles(graph).map((c) => c.join(" -> "));
    expect(cycles, `import cycles:\n${cycles.join("\n")}`).toEqual([]);
  });
});
