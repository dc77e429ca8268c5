/**
 * results.jsonl: one JSON line per finished case, appended as cases finish, so a run can stop at any
 * moment (Ctrl-C, crash) and resume. A torn last line (the process died mid-write) is dropped on read
 * and cut from the file so appends stay well-formed.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from "node:fs";
import { dirname } from "node:path";

export interface ResultsFile<R extends { id: string }> {
  readonly path: string;
  /** Rows already in the file, by id (the last one wins). */
  readonly existing: Map<string, R>;
  append(row: R): void;
}

export function openResultsFile<R extends { id: string }>(options: {
  path: string;
  fresh?: boolean;
}): ResultsFile<R> {
  const { path } = options;
  mkdirSync(dirname(path), { recursive: true });
  const existing = new Map<string, R>();
  if (existsSync(path) && !options.fresh) {
    const text = readFileSync(path, "utf8");
    // Keep the longest prefix of complete, parseable lines.
    let kept = 0;
    for (const line of text.split("\n")) {
      // A line without its newline is the torn end of an interrupted write.
      if (text.charAt(kept + line.length) !== "\n") break;
      if (line.trim() !== "") {
        try {
          const row = JSON.parse(line) as R;
          if (typeof row.id === "string") existing.set(row.id, row);
        } catch {
          break;
        }
      }
      kept += line.length + 1;
    }
    if (kept < text.length) truncateSync(path, Buffer.byteLength(text.slice(0, kept)));
  } else if (options.fresh && existsSync(path)) {
    truncateSync(path, 0);
  }
  return {
    path,
    existing,
    append(row: R) {
      appendFileSync(path, `${JSON.stringify(row)}\n`);
      existing.set(row.id, row);
    },
  };
}
