/**
 * A loaded policy together with what the model engines need from beside it: its seed demonstrations
 * (demonstrations.{yaml,yml,json,jsonl} or a demonstrations/ directory next to the policy file), added to
 * the policy's memory idempotently so seeding at every start stores nothing twice. The file reader is
 * imported when there is a memory to seed: a compiled check (a pre-tool hook) has none.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { MemoryBank } from "../memory/memory-bank.js";
import { type LoadedPolicy, loadPolicy, type RegexChecks } from "../policies/load-policy.js";

const SEED_NAMES = [
  "demonstrations.yaml",
  "demonstrations.yml",
  "demonstrations.json",
  "demonstrations.jsonl",
  "demonstrations",
];

export function seedFiles(options: { loaded: LoadedPolicy }): string[] {
  return SEED_NAMES.map((n) => join(options.loaded.dir, n)).filter((p) => existsSync(p));
}

/** Seeds a policy's memory with the demonstrations beside it and any extra files the user gave. */
export async function seedPolicyMemory(options: {
  loaded: LoadedPolicy;
  memory: MemoryBank;
  extraDemonstrations?: readonly string[];
}): Promise<void> {
  const memory = options.memory.forPolicy({ policy: options.loaded.policy.name });
  const { loadDemonstrations } = await import("../memory/demonstration-file.js");
  for (const path of seedFiles({ loaded: options.loaded })) {
    await memory.seed({ demonstrations: await loadDemonstrations({ path }), origin: "seed" });
  }
  for (const path of options.extraDemonstrations ?? []) {
    await memory.seed({ demonstrations: await loadDemonstrations({ path }), origin: "user" });
  }
}

/** Loads a policy and, when a memory is given, seeds it. */
export async function loadPolicyWithSeeds(options: {
  ref: string;
  memory?: MemoryBank;
  extraDemonstrations?: readonly string[];
  cwd?: string;
  regexes?: RegexChecks;
}): Promise<LoadedPolicy> {
  const loaded = loadPolicy({
    ref: options.ref,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.regexes ? { regexes: options.regexes } : {}),
  });
  if (options.memory) {
    await seedPolicyMemory({
      loaded,
      memory: options.memory,
      ...(options.extraDemonstrations ? { extraDemonstrations: options.extraDemonstrations } : {}),
    });
  }
  return loaded;
}
