// Watching the nights: --ping-url against a loopback stand-in for a cron monitor (it records every
// ping), a monitor that is down or never answers (the night goes on, exit code unchanged), and
// --metrics-file read back by a strict reader of Prometheus's text format.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { spawnCli } from "./helpers/child-cli.js";
import { parsePrometheusText, type Family } from "./helpers/prometheus-text.js";
import { startSimulator } from "../src/simulator/index.js";
import { DEFAULT_KEY } from "../src/simulator/options.js";
import { metricsText } from "../src/watch/metrics.js";
import { ping, pingBody, pingTarget } from "../src/watch/ping.js";

const dirs: string[] = [];
const servers: Server[] = [];
afterAll(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "pcc-watch-"));
  dirs.push(d);
  return d;
}

interface Ping {
  method: string;
  path: string;
  body: string;
}

/** A monitor stand-in on loopback: records each ping; `answer` decides the reply (or none). */
async function monitor(answer: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end("OK")): Promise<{ url: string; pings: Ping[] }> {
  const pings: Ping[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (s: string) => (body += s));
    req.on("end", () => {
      pings.push({ method: req.method!, path: req.url!, body });
      answer(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/ping/5f1a-uuid`, pings };
}

function input(dir: string): string {
  const path = join(dir, "in.csv");
  writeFileSync(path, "postcode\nSW1A 2AA\nCF10 1AA\nEH1 1YZ\n");
  return path;
}

function family(families: Family[], name: string): Family {
  const f = families.find((x) => x.name === `postcode_coverage_${name}`);
  if (!f) throw new Error(`no family ${name}`);
  return f;
}

describe("--ping-url", () => {
  test("the monitor hears /start, then /<exit code> with the log's last lines, key masked", async () => {
    const m = await monitor();
    const sim = await startSimulator({ port: 0 });
    try {
      const dir = tempDir();
      const r = await spawnCli(
        "batch",
        ["--in", input(dir), "--base-url", sim.url, "--rate", "6000", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--no-progress", "--ping-url", m.url],
        { env: { COVERAGE_API_KEY: DEFAULT_KEY } },
      ).done;
      expect(r.code).toBe(0);
      expect(m.pings.map((p) => `${p.method} ${p.path}`)).toEqual(["POST /ping/5f1a-uuid/start", "POST /ping/5f1a-uuid/0"]);
      const end = m.pings[1]!.body;
      expect(end).toMatch(/run 1 finished, exit 0: 3 postcodes/);
      expect(end.split("\n").filter(Boolean).length).toBeLessThanOrEqual(20);
      expect(end).not.toContain(DEFAULT_KEY);
      expect(r.stderr).not.toMatch(/ping/);
    } finally {
      await sim.close();
    }
  }, 60_000);

  test("the exit code of a night that stops early is the end ping's path", async () => {
    const m = await monitor();
    const dir = tempDir();
    const r = await spawnCli("batch", ["--in", input(dir), "--simulate", "--max-requests", "1", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--no-progress", "--quiet", "--ping-url", m.url]).done;
    expect(r.code).toBe(3);
    expect(m.pings.map((p) => p.path)).toEqual(["/ping/5f1a-uuid/start", "/ping/5f1a-uuid/3"]);
    expect(m.pings[1]!.body).toMatch(/max-requests|max_requests/);
  }, 60_000);

  test("a monitor that is down, or never answers, fails nothing: one warning each, the night's exit code", async () => {
    const dir = tempDir();
    const down = await monitor();
    servers.at(-1)!.close();
    const refused = await spawnCli("batch", ["--in", input(dir), "--simulate", "--db", join(dir, "a.sqlite"), "--out", join(dir, "a"), "--no-progress", "--quiet", "--ping-url", down.url]).done;
    expect(refused.code).toBe(0);
    expect(refused.stderr.match(/warning: --ping-url: the monitor did not take the (start|end) ping \(ECONNREFUSED\); the night goes on/g)).toHaveLength(2);

    const silent = await monitor(() => {});
    const stalled = await spawnCli("batch", ["--in", input(dir), "--simulate", "--db", join(dir, "b.sqlite"), "--out", join(dir, "b"), "--no-progress", "--quiet", "--ping-url", silent.url, "--ping-timeout-ms", "300"]).done;
    expect(stalled.code).toBe(0);
    expect(stalled.stderr).toMatch(/the monitor did not take the start ping \(no answer within 0\.3 s\)/);
    expect(silent.pings.map((p) => p.path)).toEqual(["/ping/5f1a-uuid/start", "/ping/5f1a-uuid/0"]);
  }, 60_000);

  test("a night refused before it starts (missing key file, bad option value) pings /1 and writes its metrics with the refusal's reason", async () => {
    const m = await monitor();
    const dir = tempDir();
    const prom = join(dir, "night.prom");
    const common = ["--in", input(dir), "--base-url", "http://127.0.0.1:9", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--quiet", "--ping-url", m.url, "--metrics-file", prom];
    const refusals = [
      { args: ["--key-file", join(dir, "no-such-keys")], says: /--key-file .*no such file/ },
      { args: ["--concurrency", "lots"], says: /--concurrency/ },
    ];
    for (const [i, refusal] of refusals.entries()) {
      const r = await spawnCli("batch", [...common, ...refusal.args]).done;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(refusal.says);
      expect(m.pings.slice(i * 2).map((p) => p.path)).toEqual(["/ping/5f1a-uuid/start", "/ping/5f1a-uuid/1"]);
      expect(m.pings.at(-1)!.body).toMatch(refusal.says);
      const families = parsePrometheusText(readFileSync(prom, "utf8"));
      expect(family(families, "last_run_exit_code").samples[0]!.value).toBe(1);
      expect(family(families, "last_run_stop_reason").samples[0]!.labels).toEqual({ reason: "config" });
      rmSync(prom);
    }
    // an unreadable --in is refused inside the batch: heard the same way, with its own reason
    const unreadable = await spawnCli("batch", [...common.map((a) => (a.endsWith("in.csv") ? join(dir, "missing.csv") : a))], { env: { COVERAGE_API_KEY: DEFAULT_KEY } }).done;
    expect(unreadable.code).toBe(1);
    expect(m.pings.at(-1)!.path).toBe("/ping/5f1a-uuid/1");
    expect(family(parsePrometheusText(readFileSync(prom, "utf8")), "last_run_stop_reason").samples[0]!.labels).toEqual({ reason: "input" });
  }, 60_000);

  test("a monitor that refuses POST (405, 501) is pinged again with GET; one that refuses both is a warning naming both", async () => {
    for (const refusal of [405, 501]) {
      const m = await monitor((req, res) => {
        res.statusCode = req.method === "POST" ? refusal : 200;
        res.end(req.method === "POST" ? "Method Not Allowed" : "OK");
      });
      expect(await ping(new URL(m.url), 0, "night's lines\n")).toBeNull();
      expect(m.pings.map((p) => `${p.method} ${p.path}`)).toEqual(["POST /ping/5f1a-uuid/0", "GET /ping/5f1a-uuid/0"]);
    }
    const deaf = await monitor((req, res) => {
      res.statusCode = req.method === "POST" ? 405 : 404;
      res.end();
    });
    expect(await ping(new URL(deaf.url), "start", "")).toBe("the monitor answered 405 to POST and 404 to GET");
    // any other refusal is not a question of method: no second request
    const broken = await monitor((_q, res) => {
      res.statusCode = 500;
      res.end();
    });
    expect(await ping(new URL(broken.url), 3, "x\n")).toBe("the monitor answered 500");
    expect(broken.pings.map((p) => p.method)).toEqual(["POST"]);
  });

  test("a whole night reaches a monitor that takes only GET: /start and /<exit code>, no warning", async () => {
    const m = await monitor((req, res) => {
      res.statusCode = req.method === "GET" ? 200 : 405;
      res.end();
    });
    const dir = tempDir();
    const r = await spawnCli("batch", ["--in", input(dir), "--simulate", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--no-progress", "--quiet", "--ping-url", m.url]).done;
    expect(r.code, r.stderr).toBe(0);
    expect(m.pings.filter((p) => p.method === "GET").map((p) => p.path)).toEqual(["/ping/5f1a-uuid/start", "/ping/5f1a-uuid/0"]);
    expect(r.stderr).not.toMatch(/ping/);
  }, 60_000);

  test("under --log-format json the ping's body is JSON lines, a missing key file's refusal too", async () => {
    const m = await monitor();
    const dir = tempDir();
    const args = ["--in", input(dir), "--base-url", "http://127.0.0.1:9", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--ping-url", m.url, "--log-format", "json", "--key-file", join(dir, "no-such-keys")];
    const r = await spawnCli("batch", args).done;
    expect(r.code).toBe(1);
    const end = m.pings.at(-1)!;
    expect(end.path).toBe("/ping/5f1a-uuid/1");
    const lines = end.body.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.at(-1)).toMatchObject({ level: "error", event: "refused", exitCode: 1, stopReason: "config" });
    expect(String(parsed.at(-1)!.message)).toMatch(/--key-file .*no such file/);
    // the same line the log (stderr) ends with, but for the --help hint
    expect(r.stderr.trimEnd().split("\n").at(-1)).toContain('"event":"refused"');
  }, 60_000);

  test("targets keep the URL's query; a body is cut from the front to what a monitor keeps", () => {
    expect(pingTarget(new URL("https://hc-ping.com/abc/?rid=1"), "start").href).toBe("https://hc-ping.com/abc/start?rid=1");
    expect(pingTarget(new URL("https://hc-ping.com/abc"), 2).href).toBe("https://hc-ping.com/abc/2");
    const body = pingBody(Array.from({ length: 2000 }, (_, i) => `line ${i} ${"x".repeat(80)}`));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(90_000);
    expect(body.trimEnd().split("\n").at(-1)).toMatch(/^line 1999 /);
  });
});

describe("--metrics-file", () => {
  test("a night's figures in node_exporter's textfile format, written atomically, read back strictly", async () => {
    const dir = tempDir();
    const prom = join(dir, "postcode_coverage.prom");
    const args = ["--in", input(dir), "--simulate", "--db", join(dir, "c.sqlite"), "--out", join(dir, "out"), "--no-progress", "--quiet", "--metrics-file", prom];
    const before = Date.now();
    const r = await spawnCli("batch", [...args, "--monthly-quota", "broadband=50,mobile=40"]).done;
    expect(r.code).toBe(0);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    // reading the ledger for the metrics left no -wal or -shm beside the database
    expect(readdirSync(dir).filter((f) => f.startsWith("c.sqlite"))).toEqual(["c.sqlite"]);
    const families = parsePrometheusText(readFileSync(prom, "utf8"));
    for (const f of families) {
      expect(f.type, f.name).toBe("gauge");
      expect(f.help, f.name).not.toBeNull();
    }
    const ended = family(families, "last_run_end_timestamp_seconds").samples[0]!.value;
    expect(ended).toBeGreaterThanOrEqual(Math.floor(before / 1000));
    expect(ended).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(family(families, "last_run_exit_code").samples).toEqual([{ name: "postcode_coverage_last_run_exit_code", labels: {}, value: 0 }]);
    expect(family(families, "last_run_stop_reason").samples[0]!.labels).toEqual({ reason: "none" });
    expect(family(families, "last_run_requests").samples.map((s) => [s.labels.lookup, s.value])).toEqual([
      ["broadband", 3],
      ["mobile", 3],
    ]);
    expect(family(families, "postcodes_pending").samples[0]!.value).toBe(0);
    expect(family(families, "postcodes_expired").samples[0]!.value).toBe(0);
    expect(family(families, "last_run_duration_seconds").samples[0]!.value).toBeGreaterThan(0);
    // simulated requests are not counted in the quota ledger: used 0 of each plan
    expect(family(families, "quota_remaining_requests").samples.map((s) => [s.labels.lookup, s.value])).toEqual([
      ["broadband", 50],
      ["mobile", 40],
    ]);

    // a night stopped by --max-requests: its reason and pending pairs
    const stopped = await spawnCli("batch", [...args.map((a) => (a === join(dir, "c.sqlite") ? join(dir, "d.sqlite") : a)), "--max-requests", "1"]).done;
    expect(stopped.code).toBe(3);
    const again = parsePrometheusText(readFileSync(prom, "utf8"));
    expect(family(again, "last_run_exit_code").samples[0]!.value).toBe(3);
    expect(family(again, "last_run_stop_reason").samples[0]!.labels).toEqual({ reason: "max_requests" });
    expect(family(again, "postcodes_pending").samples[0]!.value).toBeGreaterThan(0);
    expect(existsSync(`${prom}.tmp`)).toBe(false);
  }, 60_000);

  test("label values are escaped as the format says; a family without samples keeps its HELP and TYPE", () => {
    const text = metricsText({ endedAtMs: 1_800_000_000_000, durationMs: 1500, exitCode: 1, stopReason: 'a "quoted"\\odd\nreason', requests: {}, quota: [], pending: null, expired: null });
    const families = parsePrometheusText(text);
    expect(family(families, "last_run_stop_reason").samples[0]!.labels.reason).toBe('a "quoted"\\odd\nreason');
    expect(family(families, "quota_used_requests").samples).toEqual([]);
    expect(family(families, "last_run_end_timestamp_seconds").samples[0]!.value).toBe(1_800_000_000);
    expect(() => parsePrometheusText("x 1")).toThrow(/line feed/);
    expect(() => parsePrometheusText('x{a="\\t"} 1\n')).toThrow(/escape/);
    expect(() => parsePrometheusText("x 1\ny 1\nx 2\n")).toThrow(/split/);
  });
});
