/**
 * Progress for long runs: a live bar with rate and ETA on a terminal, and a plain line every few
 * seconds when stderr is not a terminal (CI logs), both on stderr so stdout stays machine-readable.
 */
import cliProgress from "cli-progress";

export interface Progress {
  tick(): void;
  stop(): void;
}

export function createProgress(options: {
  total: number;
  label: string;
  enabled: boolean;
  skipped?: number;
}): Progress {
  if (!options.enabled || options.total === 0) return { tick() {}, stop() {} };
  const tty = Boolean(process.stderr.isTTY);
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${options.label} [{bar}] {value}/{total} {percentage}% | {rate}/s | ETA {eta_formatted}`,
      noTTYOutput: !tty,
      notTTYSchedule: 5_000,
      etaBuffer: 50,
      hideCursor: tty,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(options.total, 0, { rate: "0.0" });
  let done = 0;
  return {
    tick() {
      done++;
      const seconds = (Date.now() - started) / 1000;
      bar.update(done, { rate: seconds > 0 ? (done / seconds).toFixed(1) : "0.0" });
    },
    stop() {
      bar.stop();
    },
  };
}
