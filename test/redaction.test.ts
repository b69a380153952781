// Issue 10.5: no part of a key is ever written anywhere: one redactor, applied before text is cut.
import http from "node:http";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { Redactor } from "../src/log/redact.js";
import { DEFAULT_KEY } from "../src/simulator/index.js";
import { otherKindMessage } from "../src/store/data-kind.js";
import { createLogger } from "../src/log/logger.js";
import { generatePostcodes } from "../src/simulator/index.js";
import { runIn, tempDir, writeCsv } from "./helpers/batch-harness.js";
import { query } from "./helpers/child-cli.js";

const KEY = "0123456789abcdef0123456789abcdef";
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Every 6-character run of the key. */
function pieces(key: string): string[] {
  return Array.from({ length: key.length - 5 }, (_, i) => key.slice(i, i + 6));
}

describe("the redactor", () => {
  it("masks the key, half of it, and any run of 6 or more of its characters holding a digit", () => {
    const r = new Redactor(["Sup3r-Secret-K3y!"]);
    expect(r.redact("key=Sup3r-Secret-K3y! end")).toBe("key=*** end");
    expect(r.redact("cut: …Secret-K3")).toBe("cut: …***");
    expect(r.redact("Sup3r alone")).toBe("Sup3r alone");
    expect(r.redact("tail Ret-K3y! and Sup3r-S")).toBe("tail R*** and ***");
  });

  it("keeps the tool's own words whole with the simulator's key, and still masks the key and half of it", () => {
    const r = new Redactor([DEFAULT_KEY]);
    for (const words of [otherKindMessage("output/coverage.sqlite", false), otherKindMessage("output/coverage.sqlite", true), "the local simulator's key"])
      expect(r.redact(words)).toBe(words);
    expect(r.redact(`key=${DEFAULT_KEY}.`)).toBe("key=***.");
    expect(r.redact(`echo ${DEFAULT_KEY.slice(0, 16)}…`)).toBe("echo ***…");
    expect(r.redact(`tail ${DEFAULT_KEY.slice(-16)}`)).toBe("tail ***");
  });

  it("with keys made of common words, masks the key wherever it is and garbles no other word", () => {
    const sentence = "output/coverage.sqlite holds simulated answers (--simulate, npm run demo)";
    const r = new Redactor(["simulate-demo-answers"]);
    expect(r.redact(sentence)).toBe(sentence);
    expect(r.redact("sent simulate-demo-answers twice")).toBe("sent *** twice");
    expect(r.redact("cut simulate-demo-a…")).toBe("cut ***…");
    // a key that is one word is masked where that word is: the key never appears
    expect(new Redactor(["simulate"]).redact(sentence)).toBe("output/coverage.sqlite holds ***d answers (--***, npm run demo)");
    expect(new Redactor(["demo"]).redact(sentence)).toBe("output/coverage.sqlite holds simulated answers (--simulate, npm run ***)");
    expect(new Redactor(["answers"]).redact(sentence)).toBe("output/coverage.sqlite holds simulated *** (--simulate, npm run demo)");
  });

  it("masks 32-hex runs that look like any subscription key", () => {
    expect(new Redactor().redact(`other key ${"ab".repeat(16)} here`)).toBe("other key *** here");
  });

  it("is what the logger uses, in text and JSON lines", () => {
    const lines: string[] = [];
    const log = createLogger({ format: "json", quiet: false, write: (l) => lines.push(l) });
    log.addSecret(KEY);
    log.info(`sent ${KEY.slice(3, 25)}`, { detail: `x${KEY.slice(0, 8)}` });
    expect(lines[0]).not.toMatch(new RegExp(pieces(KEY).join("|")));
    expect(JSON.parse(lines[0]!)).toMatchObject({ message: "sent ***", detail: "x***" });
  });
});

describe("a 502 whose plain-text body echoes the key", () => {
  it("stores, reports and logs no piece of it (on main the first 24 of its 32 characters survived the cut)", async () => {
    const server = http.createServer((req, res) => {
      const key = String(req.headers["ocp-apim-subscription-key"]);
      res.writeHead(502, { "content-type": "text/plain" });
      res.end(`Bad gateway key=${key}: upstream failed`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const d = tempDir("pcc-redact-");
      dirs.push(d);
      // two postcodes so the 502s are per postcode, not an outage; no retries
      const input = writeCsv(d, "in.csv", ["postcode", ...generatePostcodes(1, 2)]);
      const r = await runIn(d, { in: input, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retries: 0, lookups: "broadband" }, { COVERAGE_API_KEY: KEY });
      expect(r.exitCode).toBe(2);
      const errors = query<{ last_error: string }>(join(d, "coverage.sqlite"), "SELECT last_error FROM lookups");
      expect(errors).toHaveLength(2);
      const everything = [...errors.map((e) => e.last_error), readFileSync(join(d, "out", "failures.csv"), "utf8"), ...r.logs].join("\n");
      expect(errors[0]!.last_error).toContain("key=***");
      for (const p of pieces(KEY)) expect(everything).not.toContain(p);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
