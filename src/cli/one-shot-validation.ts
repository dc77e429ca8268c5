/**
 * zod's JIT off for a one-shot command (`warden check`, `warden hook`): such a command parses each
 * schema about once, so the JIT (a parser function generated per object schema on its first parse)
 * costs more than it saves, on every hook call. Each schema reads the setting when it is constructed,
 * so the command table (commands/index.ts) imports this module, and with it zod, before the command's
 * modules (and the schemas they build at import); long-running commands (serve, mcp) keep the JIT.
 * A module of its own so that the table itself imports no zod: `warden --version` needs none.
 */
import { z } from "zod";

export function turnOffZodJit(): void {
  z.config({ jitless: true });
}
