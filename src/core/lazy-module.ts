/**
 * A dependency loaded synchronously the first time it is used, instead of when the module that uses
 * it is imported. The canonical forms (URLs, e-mail addresses, paths, shell commands), YAML and the
 * SQL parser are each needed by only some policies and some checks, but the code that needs them is
 * synchronous and sits under every compiled check: a static import would make `warden check` — a
 * pre-tool hook run on every action — pay for all of them. Every package loaded this way is
 * CommonJS (or offers a `require` entry) or a Node built-in, so `require` returns the same module an
 * import would.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/**
 * A getter for the package `specifier`: the first call loads it (a missing package throws there, as
 * its import would have at start), later calls return the same module.
 */
export function lazyModule<T>(options: { specifier: string }): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) loaded = load(options.specifier) as T;
    return loaded;
  };
}
