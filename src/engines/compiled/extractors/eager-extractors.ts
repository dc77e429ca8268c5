/**
 * Imports both on-demand extractors (load-extractors.ts) statically and registers them, for the places
 * whose callers use the compiled engine's synchronous API without awaiting a load first: the library's
 * root export (an application's `engine.assess(...)`) and the check workers. `warden check` does not
 * import this module, so a tool policy's check never loads them.
 */
import * as ehrAgent from "./ehragent/index.js";
import { registerExtractors } from "./load-extractors.js";
import * as taskCategory from "./task-category/index.js";

registerExtractors({ ehrAgent, taskCategory });
