import { describe, expect, it } from "vitest";
import { barChart, lineChart } from "./svg-chart.js";

describe("SVG charts", () => {
  it("draws a line chart with one path per series and a point per value", () => {
    const svg = lineChart({
      title: "LPA vs demonstrations",
      subtitle: "scripted model: not meaningful",
      xLabel: "k",
      yLabel: "%",
      series: [
        {
          name: "LPA",
          points: [
            [0, 90],
            [1, 98],
            [3, 99],
          ],
        },
        {
          name: "CCA",
          points: [
            [0, 80],
            [1, 95],
            [3, 97],
          ],
        },
      ],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg.match(/<circle /g)).toHaveLength(6);
    expect(svg).toContain("scripted model: not meaningful");
  });

  it("draws grouped bars and escapes text", () => {
    const svg = barChart({
      title: "Retrieval <order>",
      xLabel: "metric",
      yLabel: "%",
      groups: [
        {
          label: "LPA",
          bars: [
            { name: "most", value: 98.7 },
            { name: "least", value: 98.1 },
          ],
        },
        {
          label: "CCA",
          bars: [
            { name: "most", value: 97.5 },
            { name: "least", value: 96.9 },
          ],
        },
      ],
    });
    expect(svg.match(/<rect x="\d/g)?.length).toBeGreaterThanOrEqual(4);
    expect(svg).toContain("Retrieval &lt;order&gt;");
    expect(svg).toContain(">98.7<");
  });
});
