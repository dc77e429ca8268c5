/**
 * The fake upstream MCP server on stdio, for tests that start it as a child process. When
 * FAKE_UPSTREAM_LOG names a file, every call received is appended to it as a JSON line.
 */
import { appendFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createFakeUpstreamServer } from "./upstream-server.fixture.js";

const log = process.env.FAKE_UPSTREAM_LOG;
const { server } = createFakeUpstreamServer({
  onCall: (call) => {
    if (log) appendFileSync(log, `${JSON.stringify(call)}\n`);
  },
});
await server.connect(new StdioServerTransport());
