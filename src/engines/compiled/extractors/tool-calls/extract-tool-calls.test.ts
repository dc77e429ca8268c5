import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { scanEmbeddedJson } from "./embedded-json.js";
import { extractToolCalls } from "./extract-tool-calls.js";

const brief = (value: unknown) =>
  extractToolCalls({ value }).calls.map((c) => [c.name, c.args, c.format, c.id]);

describe("extractToolCalls", () => {
  it("reads an OpenAI chat completion with tool_calls (arguments as JSON text)", () => {
    const completion = {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_a",
                type: "function",
                function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
              },
              {
                id: "call_b",
                type: "function",
                function: { name: "send_email", arguments: '{"to":"x@y.z"}' },
              },
            ],
          },
        },
      ],
    };
    const r = extractToolCalls({ value: completion });
    expect(r.confidence).toBe("high");
    expect(brief(completion)).toEqual([
      ["get_weather", { city: "Oslo" }, "openai-chat", "call_a"],
      ["send_email", { to: "x@y.z" }, "openai-chat", "call_b"],
    ]);
  });

  it("reads a bare tool_calls array, a message list and the legacy function_call", () => {
    expect(brief([{ id: "c1", type: "function", function: { name: "ls", arguments: "" } }])).toEqual([
      ["ls", {}, "openai-chat", "c1"],
    ]);
    const legacy = { role: "assistant", function_call: { name: "lookup", arguments: '{"q":"x"}' } };
    expect(brief([{ role: "user", content: "hi" }, legacy])).toEqual([
      ["lookup", { q: "x" }, "openai-chat", undefined],
    ]);
  });

  it("gives low confidence for malformed JSON arguments and keeps the raw text", () => {
    const r = extractToolCalls({
      value: {
        tool_calls: [{ id: "c", type: "function", function: { name: "rm", arguments: '{"path": "/tmp' } }],
      },
    });
    expect(r.confidence).toBe("low");
    expect(r.calls[0]).toMatchObject({ name: "rm", args: {}, rawArguments: '{"path": "/tmp' });
    expect(r.reason).toMatch(/rm: the arguments are not valid JSON/);
    expect(extractToolCalls({ value: { function: { name: "f", arguments: "[1,2]" } } }).confidence).toBe(
      "low",
    );
  });

  it("reads OpenAI Responses function_call items and skips other output items", () => {
    const response = {
      output: [
        { type: "reasoning", id: "rs_1", summary: [] },
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_9",
          name: "search",
          arguments: '{"q":"flights"}',
        },
        { type: "function_call_output", call_id: "call_9", output: "{}" },
      ],
    };
    expect(brief(response)).toEqual([["search", { q: "flights" }, "openai-responses", "call_9"]]);
  });

  it("reads AI SDK tool-call parts with input or the older args, once per call id", () => {
    const part = { type: "tool-call", toolCallId: "t1", toolName: "weather", input: { city: "Rome" } };
    const result = {
      text: "",
      content: [part],
      toolCalls: [part],
      toolResults: [{ type: "tool-result", toolCallId: "t1", toolName: "weather", output: { temp: 20 } }],
      steps: [{ content: [part], toolCalls: [part] }],
    };
    expect(brief(result)).toEqual([["weather", { city: "Rome" }, "ai-sdk", "t1"]]);
    expect(brief({ toolCalls: [{ toolCallId: "t2", toolName: "calc", args: { x: 1 } }] })).toEqual([
      ["calc", { x: 1 }, "ai-sdk", "t2"],
    ]);
    expect(brief({ type: "tool-call", toolCallId: "t3", toolName: "calc", input: '{"x":2}' })).toEqual([
      ["calc", { x: 2 }, "ai-sdk", "t3"],
    ]);
  });

  it("reads Anthropic tool_use blocks", () => {
    const message = {
      role: "assistant",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Let me check." },
        { type: "tool_use", id: "toolu_1", name: "get_stock", input: { ticker: "ACME" } },
      ],
    };
    expect(brief(message)).toEqual([["get_stock", { ticker: "ACME" }, "anthropic", "toolu_1"]]);
  });

  it("reads MCP tools/call requests, alone or batched, and ignores other methods", () => {
    const request = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "github.create_issue", arguments: { title: "x" } },
    };
    expect(brief(request)).toEqual([["github.create_issue", { title: "x" }, "mcp", "7"]]);
    expect(brief([{ jsonrpc: "2.0", id: 1, method: "tools/list" }, request])).toHaveLength(1);
  });

  it("reads plain objects but not tool definitions or records that merely have a name", () => {
    expect(brief({ name: "delete_file", arguments: { path: "a.txt" } })).toEqual([
      ["delete_file", { path: "a.txt" }, "plain", undefined],
    ]);
    expect(brief({ name: "book", parameters: { id: 3 } })).toEqual([["book", { id: 3 }, "plain", undefined]]);
    const definitions = {
      tools: [
        {
          type: "function",
          function: { name: "f", description: "d", parameters: { type: "object", properties: {} } },
        },
        {
          type: "function",
          name: "g",
          parameters: { type: "object", properties: { a: { type: "string" } } },
        },
        { name: "h", description: "MCP tool", inputSchema: { type: "object", properties: {} } },
      ],
    };
    expect(extractToolCalls({ value: definitions })).toMatchObject({ calls: [], confidence: "none" });
    expect(brief({ user: { name: "Ann", input: "hello", age: 3 } })).toEqual([]);
  });

  it("does not read calls nested inside another call's arguments", () => {
    const value = { name: "run", arguments: { payload: { name: "inner", arguments: {} } } };
    expect(brief(value).map((c) => c[0])).toEqual(["run"]);
  });

  it("reads calls from JSON text and from JSON inside prose", () => {
    const json = JSON.stringify({ type: "tool_use", id: "x", name: "t", input: {} });
    expect(extractToolCalls({ value: json }).confidence).toBe("high");
    const prose =
      'I will call the tool now.\n```json\n{"name": "transfer_funds", "arguments": {"amount": 500, "to": "acct-9"}}\n```\nand then <tool_call>{"name": "notify", "arguments": "{\\"who\\": \\"me\\"}"}</tool_call>';
    const r = extractToolCalls({ value: prose });
    expect(r.confidence).toBe("medium");
    expect(r.calls.map((c) => [c.name, c.args])).toEqual([
      ["transfer_funds", { amount: 500, to: "acct-9" }],
      ["notify", { who: "me" }],
    ]);
  });

  it("answers low for call-shaped text that is not JSON and none for plain text", () => {
    expect(extractToolCalls({ value: 'Calling {"name": "rm", "arguments": {"path": "/"' }).confidence).toBe(
      "low",
    );
    expect(extractToolCalls({ value: "Here is a {curly} remark." })).toMatchObject({
      calls: [],
      confidence: "none",
    });
    expect(extractToolCalls({ value: "" }).confidence).toBe("none");
    expect(extractToolCalls({ value: null }).confidence).toBe("none");
  });

  it("survives cycles and arbitrary values", () => {
    const cyclic: Record<string, unknown> = { name: "x" };
    cyclic.self = cyclic;
    expect(extractToolCalls({ value: cyclic }).calls).toEqual([]);
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const r = extractToolCalls({ value });
        expect(Array.isArray(r.calls)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (value) => {
        expect(["high", "medium", "low", "none"]).toContain(extractToolCalls({ value }).confidence);
      }),
    );
  });
});

describe("extractToolCalls on code and on what lies beside JSON in text", () => {
  const click = JSON.stringify({ name: "click", arguments: { bid: "a1" } });

  it("reads text that is one BrowserGym action call as that call", () => {
    expect(extractToolCalls({ value: ' page.goto(url="https://x.test/") ' })).toEqual({
      calls: [{ name: "page.goto", method: "goto", args: { url: "https://x.test/" }, format: "plain" }],
      confidence: "high",
    });
  });

  it("reads an agent step's action written as code as the call it runs", () => {
    const step = { thought: "go", action: "goto('https://x.test/')" };
    for (const value of [step, JSON.stringify(step), `Next: ${JSON.stringify(step)}`]) {
      expect(extractToolCalls({ value }).calls, JSON.stringify(value)).toEqual([
        { name: "goto", args: { arg0: "https://x.test/", url: "https://x.test/" }, format: "plain" },
      ]);
    }
    const unreadable = extractToolCalls({ value: { action: "goto('https://' + host)" } });
    expect(unreadable).toMatchObject({ calls: [], confidence: "low" });
    expect(unreadable.reason).toMatch(/not one call/);
    // A plain action name is no code; a call record keeps its own reading.
    expect(extractToolCalls({ value: { action: "click" } }).confidence).toBe("none");
    const record = { type: "function_call", name: "fetch", arguments: "{}", action: "goto('y')" };
    expect(extractToolCalls({ value: record }).calls.map((c) => c.name)).toEqual(["fetch"]);
  });

  it("is low when code or a call that is not JSON lies beside the JSON calls, or alone", () => {
    for (const value of [
      `${click} goto("https://x.test/")`,
      `goto ('https://x.test/') ${click}`,
      `${click}\nbrowser . goto(url = "https://x.test/")`,
      `${click} scroll(0, 200)`,
      `${click} select_option("b1", ["a"])`,
      `${click} noop()`,
      `${click}\nu = "https://x.test/"\ngoto(u)`,
      `${click} goto (*args)`,
      `${click} {'name': 'goto', 'arguments': {'url': 'https://x.test/'}}`,
      `${click} {"name": "goto", "arguments": {"url": "https://x.test/"}`,
      "Action: goto('https://x.test/')",
    ]) {
      const result = extractToolCalls({ value });
      expect(result.confidence, value).toBe("low");
      expect(result.reason, value).toMatch(/code that calls something|shaped like a tool call/);
    }
  });

  it("keeps prose beside JSON calls medium: numbered steps, asides, quoted labels", () => {
    for (const value of [
      `Step (1): open the cart (see above). ${click}`,
      `${click} - the button "Buy (1 item)", e.g. (the blue one).`,
      `Links [here](https://x.test/) and there (https://y.test/). ${click}`,
      `I compared a == b (they differ). ${click}`,
      `Pick the item(s) and pay the fee(s) in the box(es), then the categor(ies). ${click}`,
    ]) {
      expect(extractToolCalls({ value }).confidence, value).toBe("medium");
    }
  });

  it("never reads text with a code call beside a JSON call as medium or high (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }),
        fc.constantFrom(
          'goto("https://x.test/")',
          "page.goto('x')",
          "fill(bid='b1', value='k')",
          "scroll(0, 1)",
        ),
        (prose, code) => {
          const confidence = extractToolCalls({ value: `${prose} ${click} ${code}` }).confidence;
          expect(["low"]).toContain(confidence);
        },
      ),
    );
  });

  it("reads long texts of names, dots and brackets in bounded time", () => {
    for (const value of [
      `${click} ${"a".repeat(500_000)}`,
      `${click} ${"a.".repeat(250_000)}`,
      `${click} ${"a ".repeat(250_000)}(`,
      `${click} ${"a(".repeat(250_000)}`,
    ]) {
      expect(["low", "medium"]).toContain(extractToolCalls({ value }).confidence);
    }
  });
});

describe("scanEmbeddedJson", () => {
  it("finds objects and arrays and honours braces inside strings", () => {
    const scan = scanEmbeddedJson({ text: 'a {"s": "}{"} b [1, 2] c {bad}' });
    expect(scan.values.map((v) => v.value)).toEqual([{ s: "}{" }, [1, 2]]);
  });
});

describe("extractToolCalls bounds", () => {
  it("reads 1 MB of openers in one pass and reports no call", () => {
    const result = extractToolCalls({ value: "{".repeat(1_000_000) });
    expect(result.calls).toEqual([]);
  });

  it("does not parse text nested deeper than it can judge: low confidence", () => {
    const result = extractToolCalls({ value: `${"[".repeat(500_000)}${"]".repeat(500_000)}` });
    expect(result.confidence).toBe("low");
    expect(result.reason).toMatch(/deeper than/);
  });

  it("says a scan cut short by its bounds is partial, even with calls found", () => {
    const call = JSON.stringify({ name: "ls", arguments: {} });
    const result = extractToolCalls({ value: `text ${call} ${"{} ".repeat(3_000)}` });
    expect(result.confidence).toBe("low");
    expect(result.calls.map((c) => c.name)).toEqual(["ls"]);
  });
});
