/**
 * Small, dependency-free SVG charts for benchmark reports: a line chart (e.g. LPA/CCA against the
 * number of demonstrations) and a grouped bar chart (e.g. most- vs least-similar retrieval). The output is
 * deterministic text, so reports diff cleanly.
 */

export interface LineSeries {
  name: string;
  points: ReadonlyArray<readonly [number, number]>;
}

export interface BarGroup {
  label: string;
  bars: ReadonlyArray<{ name: string; value: number }>;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"];
const W = 640;
const H = 400;
const M = { top: 48, right: 150, bottom: 56, left: 64 };

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function frame(options: {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  body: string;
}): string {
  const subtitle = options.subtitle
    ? `<text x="${W / 2}" y="38" text-anchor="middle" font-size="11" fill="#a00">${esc(options.subtitle)}</text>`
    : "";
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">
<rect width="${W}" height="${H}" fill="white"/>
<text x="${W / 2}" y="20" text-anchor="middle" font-size="15" font-weight="bold">${esc(options.title)}</text>
${subtitle}
${options.body}
<text x="${M.left + (W - M.left - M.right) / 2}" y="${H - 14}" text-anchor="middle" font-size="12">${esc(options.xLabel)}</text>
<text x="16" y="${M.top + (H - M.top - M.bottom) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 16 ${M.top + (H - M.top - M.bottom) / 2})">${esc(options.yLabel)}</text>
</svg>
`;
}

function yAxis(options: { min: number; max: number }): { body: string; y: (v: number) => number } {
  const plotH = H - M.top - M.bottom;
  const y = (v: number) => M.top + plotH - ((v - options.min) / (options.max - options.min || 1)) * plotH;
  const lines: string[] = [];
  for (let i = 0; i <= 5; i++) {
    const v = options.min + ((options.max - options.min) * i) / 5;
    lines.push(
      `<line x1="${M.left}" x2="${W - M.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#ddd"/>`,
      `<text x="${M.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11">${fmt(v)}</text>`,
    );
  }
  lines.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`);
  return { body: lines.join("\n"), y };
}

function legend(names: readonly string[]): string {
  return names
    .map((name, i) => {
      const y = M.top + 8 + i * 18;
      const color = PALETTE[i % PALETTE.length];
      return `<rect x="${W - M.right + 14}" y="${y - 9}" width="12" height="12" fill="${color}"/><text x="${W - M.right + 32}" y="${y + 1}" font-size="12">${esc(name)}</text>`;
    })
    .join("\n");
}

export function lineChart(options: {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: readonly LineSeries[];
  yMin?: number;
  yMax?: number;
}): string {
  const xs = options.series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = options.series.flatMap((s) => s.points.map((p) => p[1]));
  const xMin = Math.min(...xs, 0);
  const xMax = Math.max(...xs, 1);
  const axis = yAxis({ min: options.yMin ?? Math.min(0, ...ys), max: options.yMax ?? Math.max(100, ...ys) });
  const plotW = W - M.left - M.right;
  const x = (v: number) => M.left + ((v - xMin) / (xMax - xMin || 1)) * plotW;
  const ticks = [...new Set(xs)]
    .sort((a, b) => a - b)
    .map(
      (v) =>
        `<text x="${x(v).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle" font-size="11">${fmt(v)}</text>`,
    )
    .join("\n");
  const paths = options.series
    .map((s, i) => {
      const color = PALETTE[i % PALETTE.length];
      const pts = [...s.points].sort((a, b) => a[0] - b[0]);
      const d = pts
        .map((p, j) => `${j === 0 ? "M" : "L"}${x(p[0]).toFixed(1)},${axis.y(p[1]).toFixed(1)}`)
        .join(" ");
      const dots = pts
        .map(
          (p) =>
            `<circle cx="${x(p[0]).toFixed(1)}" cy="${axis.y(p[1]).toFixed(1)}" r="3.5" fill="${color}"/>`,
        )
        .join("");
      return `<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>${dots}`;
    })
    .join("\n");
  const xAxisLine = `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`;
  return frame({
    ...options,
    body: [axis.body, xAxisLine, ticks, paths, legend(options.series.map((s) => s.name))].join("\n"),
  });
}

export function barChart(options: {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  groups: readonly BarGroup[];
  yMin?: number;
  yMax?: number;
}): string {
  const names = [...new Set(options.groups.flatMap((g) => g.bars.map((b) => b.name)))];
  const values = options.groups.flatMap((g) => g.bars.map((b) => b.value));
  const axis = yAxis({ min: options.yMin ?? 0, max: options.yMax ?? Math.max(100, ...values) });
  const plotW = W - M.left - M.right;
  const groupW = plotW / Math.max(1, options.groups.length);
  const barW = (groupW * 0.7) / Math.max(1, names.length);
  const bars = options.groups
    .map((g, gi) => {
      const gx = M.left + gi * groupW + groupW * 0.15;
      const rects = g.bars
        .map((b) => {
          const i = names.indexOf(b.name);
          const bx = gx + i * barW;
          const top = axis.y(b.value);
          return `<rect x="${bx.toFixed(1)}" y="${top.toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(H - M.bottom - top).toFixed(1)}" fill="${PALETTE[i % PALETTE.length]}"/><text x="${(bx + barW / 2 - 1).toFixed(1)}" y="${(top - 4).toFixed(1)}" text-anchor="middle" font-size="10">${fmt(b.value)}</text>`;
        })
        .join("");
      const label = `<text x="${(gx + groupW * 0.35).toFixed(1)}" y="${H - M.bottom + 16}" text-anchor="middle" font-size="11">${esc(g.label)}</text>`;
      return rects + label;
    })
    .join("\n");
  const xAxisLine = `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`;
  return frame({ ...options, body: [axis.body, xAxisLine, bars, legend(names)].join("\n") });
}
