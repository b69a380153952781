// Start-up: what a user waits for before any work, from a clone through tsx (`npm run batch`'s
// `node --import tsx src/cli/batch.ts`) against the installed command's compiled build
// (`node dist/cli/main.js batch`, what `postcode-coverage batch` runs). Two things each way, in
// alternating rounds, the median: `--help`, and a night with nothing to do (the sample's 300
// postcodes, all fresh from a first run against the in-process simulator: plan, no request, no
// report rewrite). The build is made first (`npm run build`).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { below, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { ROOT, scratchDir } from "../lib/paths.js";
import { median, round } from "../lib/stats.js";

const WAYS = {
  tsx: [process.execPath, "--import", "tsx", "src/cli/batch.ts"],
  installed: [process.execPath, "dist/cli/main.js", "batch"],
} as const;

function seconds(argv: readonly string[]): number {
  const started = performance.now();
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${argv.slice(1).join(" ")} exited ${r.status}: ${r.stderr.slice(0, 500)}`);
  return (performance.now() - started) / 1000;
}

export const startup: Scenario = {
  name: "startup",
  async run(ctx: BenchContext) {
    const build = spawnSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
    if (build.status !== 0) throw new Error("npm run build failed");
    const scratch = scratchDir("startup");
    try {
      const night = ["--in", "input/sample-postcodes.csv", "--simulate", "--db", join(scratch.dir, "c.sqlite"), "--out", join(scratch.dir, "out"), "--quiet", "--no-progress"];
      seconds([...WAYS.installed, ...night]);
      const rounds = ctx.quick ? 3 : 7;
      const times: Record<string, number[]> = { tsxHelp: [], installedHelp: [], tsxNight: [], installedNight: [] };
      for (let i = 0; i < rounds; i++) {
        const order = i % 2 === 0 ? (["tsx", "installed"] as const) : (["installed", "tsx"] as const);
        for (const way of order) {
          times[`${way}Help`]!.push(seconds([...WAYS[way], "--help"]));
          times[`${way}Night`]!.push(seconds([...WAYS[way], ...night]));
        }
      }
      const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, round(median(v), 2)]));
      ctx.log(`startup: --help ${m.tsxHelp} s through tsx, ${m.installedHelp} s installed; a night with nothing to do ${m.tsxNight} s, ${m.installedNight} s`);
      return {
        setup: `median of ${rounds} alternating rounds; the no-op night: 300 fresh postcodes, --simulate, --quiet`,
        checks: [
          check("--help, installed ÷ through tsx", round(m.installedHelp! / m.tsxHelp!, 2), `${m.installedHelp} s ÷ ${m.tsxHelp} s`, below(1)),
          check("no-op night, installed ÷ through tsx", round(m.installedNight! / m.tsxNight!, 2), `${m.installedNight} s ÷ ${m.tsxNight} s`, below(1)),
        ],
        figures: { seconds: m, rounds: times },
        notes: [],
      };
    } finally {
      scratch.remove();
    }
  },
};
