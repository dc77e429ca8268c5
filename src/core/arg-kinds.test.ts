import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ArgumentKindsSchema,
  argLeaves,
  kindFromName,
  kindsFromSchema,
  kindsFromShape,
  kindsOfLeaf,
  MAX_ARG_DEPTH,
  MAX_ARG_LEAVES,
  PathOptionsSchema,
} from "./arg-kinds.js";

describe("argument kinds", () => {
  it("reads the kind from an argument's name, whole or by its last word", () => {
    const k = (name: string) => kindFromName({ name });
    expect(k("path")).toBe("path");
    expect(k("paths")).toBe("path");
    expect(k("destination")).toBe("path");
    expect(k("file_path")).toBe("path");
    expect(k("filePath")).toBe("path");
    expect(k("targetUrl")).toBe("url");
    expect(k("uri")).toBe("url");
    expect(k("reply_to")).toBe("email");
    expect(k("replyTo")).toBe("email");
    expect(k("bcc")).toBe("email");
    expect(k("recipients")).toBe("email");
    expect(k("cmd")).toBe("command");
    expect(k("shell_command")).toBe("command");
    expect(k("content")).toBeUndefined();
    expect(k("constructor")).toBeUndefined();
    expect(k("__proto__")).toBeUndefined();
    expect(k("title")).toBeUndefined();
  });

  it("reads the kind from a value's shape", () => {
    const k = (value: string) => kindsFromShape({ value });
    expect(k("/etc/passwd")).toEqual(["path"]);
    expect(k("~/.ssh/id_rsa")).toEqual(["path"]);
    expect(k("./a")).toEqual(["path"]);
    expect(k("..")).toEqual(["path"]);
    expect(k("file:///etc/shadow")).toEqual(["path", "url"]);
    expect(k("https://example.com/x")).toEqual(["url"]);
    expect(k("hello world")).toEqual([]);
    expect(k("eve@evil.test")).toEqual(["email"]);
    expect(k("Eve Doe <eve@evil.test>")).toEqual(["email"]);
    expect(k("https://user@host.test/")).toEqual(["url"]);
    expect(k("/home/u@x.test")).toEqual(["path"]);
    expect(k("mail eve@evil.test now")).toEqual([]);
    expect(k("/a\n/b")).toEqual([]);
  });

  it("reads kinds from a JSON Schema: format, property names, descriptions, items, refs and unions", () => {
    const schema = {
      type: "object",
      properties: {
        target: { type: "string", description: "The absolute path of the file to delete" },
        site: { type: "string", format: "uri" },
        who: { type: "string", format: "email" },
        paths: { type: "array", items: { type: "string" } },
        nested: { $ref: "#/$defs/Nested" },
        either: { anyOf: [{ type: "string", format: "uri" }, { type: "number" }] },
        content: { type: "string", description: "Text to write to the file" },
      },
      $defs: {
        Nested: {
          type: "object",
          properties: { run: { type: "string", description: "Shell command to run" } },
        },
      },
    };
    const k = (...segments: string[]) => kindsFromSchema({ schema, segments });
    expect(k("target")).toEqual(["path"]);
    expect(k("site")).toEqual(["url"]);
    expect(k("who")).toEqual(["email"]);
    expect(k("paths", "0")).toEqual(["path"]);
    expect(k("nested", "run")).toEqual(["command"]);
    expect(k("either")).toEqual(["url"]);
    expect(k("content")).toEqual([]);
    expect(k("missing")).toEqual([]);
  });

  it("puts declared kinds first and covers everything below a declared path", () => {
    const declared = { "files.*.location": "path" as const, recipients: "email" as const };
    expect(kindsOfLeaf({ declared, segments: ["files", "3", "location"], value: "x" })).toEqual(["path"]);
    expect(kindsOfLeaf({ declared, segments: ["recipients", "0"], value: "/x" })).toEqual(["email", "path"]);
    expect(kindsOfLeaf({ declared, segments: ["other"], value: "plain" })).toEqual([]);
  });

  it("reads an address nested under an argument named for addresses", () => {
    const { leaves } = argLeaves({
      args: { cc: { address: "eve@evil.test", name: "Eve" }, to: [{ mail: "x@y.test" }], note: { a: "b@c" } },
    });
    expect(leaves.map((l) => [l.segments.join("."), l.kinds])).toEqual([
      ["cc.address", ["email"]],
      ["cc.name", []],
      ["to.0.mail", ["email"]],
      ["note.a", []],
    ]);
  });

  it("walks every string leaf of nested objects and arrays", () => {
    const { leaves, truncated } = argLeaves({
      args: { paths: ["/a", "/b"], opts: { dest: "x", n: 3, deep: [{ url: "https://e.test" }] } },
    });
    expect(truncated).toBeUndefined();
    expect(leaves.map((l) => [l.segments.join("."), l.kinds])).toEqual([
      ["paths.0", ["path"]],
      ["paths.1", ["path"]],
      ["opts.dest", ["path"]],
      ["opts.deep.0.url", ["url"]],
    ]);
  });

  it("joins a command with its separately listed arguments, each quoted", () => {
    const { leaves } = argLeaves({ args: { command: "rm", args: ["-rf", "a b", "it's", 3] } });
    expect(leaves[0]).toMatchObject({ segments: ["command"], commandLine: "rm '-rf' 'a b' 'it'\\''s' '3'" });
    expect(argLeaves({ args: { command: "ls", args: [{ x: 1 }] } }).leaves[0]?.commandLine).toBeUndefined();
  });

  it("reports arguments nested too deep to walk", () => {
    let args: unknown = { path: "/etc/shadow" };
    for (let i = 0; i < MAX_ARG_DEPTH + 2; i += 1) args = { a: args };
    expect(argLeaves({ args }).truncated).toMatch(/deeper/);
    expect(argLeaves({ args: { n: new Array(MAX_ARG_LEAVES + 1).fill(1) } }).truncated).toMatch(/more than/);
  });

  it("never throws on any JSON value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (args) => {
        const { leaves } = argLeaves({ args, inputSchema: { properties: { a: { type: "string" } } } });
        for (const leaf of leaves) expect(typeof leaf.value).toBe("string");
      }),
    );
  });

  it("validates the policy's declarations", () => {
    expect(ArgumentKindsSchema.safeParse({ "fs.*": { path: "path" } }).success).toBe(true);
    expect(ArgumentKindsSchema.safeParse({ "fs.*": { path: "file" } }).success).toBe(false);
    expect(PathOptionsSchema.safeParse({ caseFold: true, base: "/srv" }).success).toBe(true);
    expect(PathOptionsSchema.safeParse({ fold: true }).success).toBe(false);
  });
});
