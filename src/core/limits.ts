/**
 * Size and depth limits shared by every boundary (CLI inputs, policy files, subjects). Deeply nested
 * values are measured iteratively, never recursively: a value 100 000 levels deep must be answered with
 * an error naming where it is too deep, not a stack overflow in a recursive parser or serialiser.
 */

/** Largest input file or stdin the CLI reads by default (16 MiB). */
export const DEFAULT_MAX_INPUT_BYTES = 16 * 1024 * 1024;
/** Largest policy file (or text file beside it) read (8 MiB). */
export const MAX_POLICY_FILE_BYTES = 8 * 1024 * 1024;
/** Deepest JSON accepted from a CLI input file or a policy document, counting every object and array. */
export const MAX_DOCUMENT_DEPTH = 128;

/** Where a value first nests deeper than allowed, or undefined when it does not. */
export interface DepthProblem {
  /** Dot path of the first value found below the limit, e.g. "trajectory.0.args.a.b". */
  path: string;
  depth: number;
}

/**
 * The first place `value` nests more than `maxDepth` objects/arrays deep (the value itself is depth 1
 * when it is an object or array), found with an explicit stack. `path` is prefixed to every path.
 */
export function depthProblem(options: {
  value: unknown;
  maxDepth: number;
  path?: string;
}): DepthProblem | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [
    { value: options.value, depth: 1, path: options.path ?? "" },
  ];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth > options.maxDepth) return { path: path || "(root)", depth };
    for (const [key, child] of Object.entries(value)) {
      stack.push({ value: child, depth: depth + 1, path: extendPath({ path, key, depth }) });
    }
  }
  return undefined;
}

/** Paths name the first PATH_SEGMENTS_SHOWN keys, then "…": enough to find the place, short to read. */
const PATH_SEGMENTS_SHOWN = 12;

function extendPath(options: { path: string; key: string; depth: number }): string {
  const { path, key, depth } = options;
  if (!path) return key;
  if (depth > PATH_SEGMENTS_SHOWN) return path.endsWith(".…") ? path : `${path}.…`;
  return `${path}.${key}`;
}
