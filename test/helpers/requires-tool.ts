// Tests that need a program beyond Node (a browser, LibreOffice, later PostgreSQL) declare it with
// requiresTool. Outside CI a missing program skips them, and the run ends with one line naming the
// program and how to install it (test/global-setup.ts prints it); with CI=true they fail instead,
// so CI cannot go green without them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { beforeAll, inject } from "vitest";
import { POSTGRESQL_ROOT, postgresBinDir } from "./postgres-server.js";

export interface Tool {
  /** what the line at the end of the run names */
  name: string;
  /** the command that installs it on Debian */
  install: string;
  /** whether this machine has it */
  present(): boolean;
}

/**
 * Where a chromium binary may be, in the order tried: PCC_CHROMIUM when set, then Debian's (the
 * wrapper script and the binary it runs), Ubuntu's (the snap and the old package's name), and the
 * browsers Playwright downloads (under PLAYWRIGHT_BROWSERS_PATH or ~/.cache/ms-playwright).
 */
export function chromiumCandidates(env: NodeJS.ProcessEnv, home: string, list: (dir: string) => string[]): string[] {
  const playwright = env.PLAYWRIGHT_BROWSERS_PATH || join(home, ".cache", "ms-playwright");
  const downloaded = list(playwright)
    .filter((d) => /^chromium-\d+$/.test(d))
    .sort((a, b) => Number(b.slice("chromium-".length)) - Number(a.slice("chromium-".length)))
    .flatMap((d) => ["chrome-linux", "chrome-linux64"].map((sub) => join(playwright, d, sub, "chrome")));
  return [
    ...(env.PCC_CHROMIUM ? [env.PCC_CHROMIUM] : []),
    "/usr/bin/chromium",
    "/usr/lib/chromium/chromium",
    "/snap/bin/chromium",
    "/usr/bin/chromium-browser",
    ...downloaded,
  ];
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The first of `tried` that exists, as a Tool whose name says which, or every path tried when none does. */
export function chromiumTool(tried: string[], exists: (path: string) => boolean): Tool & { path: string | null } {
  const path = tried.find(exists) ?? null;
  return {
    name: path ? `chromium (${path})` : `chromium (tried ${tried.join(", ")})`,
    install: "apt-get install chromium",
    present: () => path !== null,
    path,
  };
}

const CHROMIUM = chromiumTool(chromiumCandidates(process.env, homedir(), listDir), existsSync);
/** The chromium the browser tests launch (driven by playwright-core, which downloads no browser); where none was found they skip, or fail on CI, before launching it. */
export const CHROMIUM_PATH: string = CHROMIUM.path ?? "/usr/bin/chromium";

export const TOOLS = {
  chromium: CHROMIUM,
  soffice: { name: "LibreOffice (soffice)", install: "apt-get install libreoffice-calc-nogui", present: () => runs("soffice", ["--version"]) },
  pdftotext: { name: "pdftotext", install: "apt-get install poppler-utils", present: () => runs("pdftotext", ["-v"]) },
  postgresql: { name: `PostgreSQL (${POSTGRESQL_ROOT}/*/bin)`, install: "apt-get install postgresql", present: () => postgresBinDir() !== null },
  setpriv: { name: "setpriv", install: "apt-get install util-linux", present: () => runs("setpriv", ["--version"]) },
} satisfies Record<string, Tool>;

function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: "ignore", timeout: 60_000 }).status === 0;
}

export const onCi = (): boolean => process.env.CI === "true" || process.env.CI === "1";

/**
 * Whether the tests needing `tool` should be skipped: true only outside CI when it is missing (and
 * then the end of the run names it). On CI a missing tool fails every test of the file at once.
 */
export function requiresTool(tool: Tool): { skip: boolean } {
  if (tool.present()) return { skip: false };
  const message = `${tool.name} is missing: ${tool.install}`;
  if (onCi()) {
    beforeAll(() => {
      throw new Error(`${message} (CI=true: tests that need it fail rather than skip)`);
    });
    return { skip: false };
  }
  const dir = inject("missingToolsDir");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, tool.install.replace(/[^a-z0-9.-]+/gi, "_")), `${message}\n`);
  return { skip: true };
}

declare module "vitest" {
  export interface ProvidedContext {
    missingToolsDir: string;
  }
}
