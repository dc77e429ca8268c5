import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chunkDocuments } from "./chunk-documents.js";

describe("chunkDocuments", () => {
  it("follows Markdown and numbered headings with clause references", () => {
    const text = [
      "Intro words before any heading.",
      "",
      "# Data policy",
      "General rules.",
      "## 2 Personal data",
      "Keep personal data inside.",
      "### 2.3 Retention",
      "Delete after 30 days.",
      "## Devices",
      "Lock your screen.",
      "4.1 Passwords",
      "Never share passwords.",
    ].join("\n");
    const chunks = chunkDocuments({ documents: [{ name: "data.md", text }] });
    expect(chunks.map((c) => c.reference)).toEqual([
      "data.md ¶ (preamble)",
      "data.md §2",
      "data.md §2.3",
      "data.md §3",
      "data.md §4.1",
    ]);
    // The only top-level heading is the document's title: its text joins the preamble.
    expect(chunks[0]!.text).toContain("Intro words");
    expect(chunks[0]!.text).toContain("General rules.");
    expect(chunks[2]).toMatchObject({
      section: "2.3",
      headings: ["Data policy", "2 Personal data", "2.3 Retention"],
    });
    expect(chunks[2]!.text).toContain("Delete after 30 days.");
    const numbered = chunkDocuments({ documents: [{ name: "n.md", text: "# One\na\n# Two\nb\n## Sub\nc" }] });
    expect(numbered.map((c) => c.reference)).toEqual(["n.md §1", "n.md §2", "n.md §2.1"]);
  });

  it("cuts long sections into bounded parts without losing text", () => {
    fc.assert(
      fc.property(
        fc.array(fc.lorem({ maxCount: 40, mode: "sentences" }), { minLength: 1, maxLength: 12 }),
        (paragraphs) => {
          const body = paragraphs.join("\n\n");
          const chunks = chunkDocuments({
            documents: [{ name: "x.md", text: `# Title\n${body}` }],
            maxChars: 300,
          });
          for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(300 + "Title\n\n".length);
          const words = (s: string) => s.split(/\s+/).filter(Boolean).join(" ");
          expect(words(chunks.map((c) => c.text.replace(/^Title\n\n/, "")).join(" "))).toBe(words(body));
          if (chunks.length > 1) expect(chunks[1]!.reference).toMatch(/¶ \(preamble\) \(part 2 of \d+\)$/);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("rejects a document without a name", () => {
    expect(() => chunkDocuments({ documents: [{ name: "", text: "x" }] })).toThrow(/documents\.0\.name/);
  });
});
