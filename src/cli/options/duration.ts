// "30d", "12h", "90m", "45s", "2w" or a bare number of seconds → milliseconds.
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$/i.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration (examples: 30d, 12h, 90m, 45s)`);
  return Math.round(Number(m[1]) * UNIT_MS[(m[2] || "s").toLowerCase()]!);
}
