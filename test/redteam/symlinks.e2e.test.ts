/**
 * Red team, paths on disk: symbolic links already inside the workspace. Warden's canonical paths are
 * lexical (pure, no I/O), while the filesystem server follows links that stay inside its allowed
 * directories: `tmp/link -> ../app` would let a write "under tmp/" land in app/, and `app/config.txt ->
 * .env` a read of an ordinary name return the secret. With `realPaths` (`--real-paths`) the proxy checks
 * and forwards each path argument's real path, so both are refused; a link that stays inside tmp/ still
 * works. The real server behind the proxy, checked on disk.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guardedFilesystemServer, makeWorkspace, textOf } from "./filesystem-server.fixture.js";

describe("symbolic links inside the workspace (real filesystem server behind the proxy with realPaths)", () => {
  const server = guardedFilesystemServer({
    workspace: () => {
      const root = makeWorkspace("warden-fs-links-", "SECRET_TOKEN=hunter2-links");
      symlinkSync("../app", join(root, "tmp", "link"));
      symlinkSync(".env", join(root, "app", "config.txt"));
      mkdirSync(join(root, "tmp", "sub"));
      symlinkSync("sub", join(root, "tmp", "inner"));
      symlinkSync("../app/new.txt", join(root, "tmp", "dangling"));
      return root;
    },
    proxy: { realPaths: true, requestTimeoutMs: 20_000 },
  });

  it("writes nothing outside tmp/ through a link under tmp/", async () => {
    const { agent, root } = server();
    const result = await agent.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/link/c.txt`, content: "pwned" },
    });
    expect(existsSync(join(root, "app", "c.txt")), textOf(result)).toBe(false);
  });

  it("writes nothing outside tmp/ through a dangling link under tmp/", async () => {
    const { agent, root } = server();
    const result = await agent.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/dangling`, content: "pwned" },
    });
    expect(result.isError, textOf(result)).toBe(true);
    expect(existsSync(join(root, "app", "new.txt"))).toBe(false);
  });

  it("still writes through a link that stays inside tmp/, and reads what it wrote", async () => {
    const { agent, root } = server();
    const result = await agent.callTool({
      name: "write_file",
      arguments: { path: `${root}/tmp/inner/ok.txt`, content: "fine" },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(readFileSync(join(root, "tmp", "sub", "ok.txt"), "utf8")).toBe("fine");
    const read = await agent.callTool({ name: "read_text_file", arguments: { path: "tmp/inner/ok.txt" } });
    expect(textOf(read)).toBe("fine");
  });

  it("never returns the secret through a link with an ordinary name", async () => {
    const { agent, root } = server();
    const result = await agent.callTool({
      name: "read_text_file",
      arguments: { path: `${root}/app/config.txt` },
    });
    expect(textOf(result)).not.toContain("hunter2");
  });
});
