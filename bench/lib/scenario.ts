// What a scenario hands back to the runner: checks against the targets, every figure it
// measured, and, where a target is missed, what the figures say limits it.

export type Comparison = ">=" | "<=" | "<" | "==";

export interface Target {
  op: Comparison;
  value: number;
  /** how the table shows it, e.g. "≥ 0.9" */
  text: string;
}

export interface Check {
  /** what is measured, e.g. "batch ÷ bare loop, postcodes/s" */
  what: string;
  /** null when it could not be measured (the check is then skipped, not failed) */
  measured: number | null;
  /** the measured value as the table shows it, with its context */
  shown: string;
  target: Target;
  /** null when skipped */
  met: boolean | null;
  /** why skipped */
  skipped?: string;
}

export interface ScenarioResult {
  scenario: string;
  /** one line on how it was run (sizes, flags) */
  setup: string;
  checks: Check[];
  /** every figure measured, for bench.json */
  figures: Record<string, unknown>;
  /** what limits a missed target (or other observations), from the figures */
  notes: string[];
  seconds: number;
}

export interface BenchContext {
  quick: boolean;
  /** postcodes of the scale scenario's database (--scale-postcodes) */
  scalePostcodes: number;
  /** the tree whose CLIs a scenario that runs them as child processes runs (--cli-root; default this one) */
  cliRoot?: string | undefined;
  /** progress lines on stderr */
  log(message: string): void;
}

export interface Scenario {
  name: string;
  /** runs only when --only names it (too heavy for every run) */
  onlyWhenNamed?: boolean;
  /**
   * measures only the CLIs it runs as child processes (ctx.cliRoot): --against runs a commit's side
   * with this tree's bench and the commit's CLIs, so a commit from before the scenario is compared too
   */
  drivesClis?: boolean;
  run(ctx: BenchContext): Promise<Omit<ScenarioResult, "seconds" | "scenario">>;
}

export function meets(measured: number, target: Target): boolean {
  switch (target.op) {
    case ">=":
      return measured >= target.value;
    case "<=":
      return measured <= target.value;
    case "<":
      return measured < target.value;
    case "==":
      return measured === target.value;
  }
}

export function atLeast(value: number, text = `≥ ${value}`): Target {
  return { op: ">=", value, text };
}

export function atMost(value: number, text = `≤ ${value}`): Target {
  return { op: "<=", value, text };
}

export function below(value: number, text = `< ${value}`): Target {
  return { op: "<", value, text };
}

export function check(what: string, measured: number, shown: string, target: Target): Check {
  return { what, measured, shown, target, met: meets(measured, target) };
}

export function skippedCheck(what: string, target: Target, why: string, shown = "skipped"): Check {
  return { what, measured: null, shown, target, met: null, skipped: why };
}
