// A loopback proxy in front of the simulator that notes every answer the API gave: when, to which
// pair, with which status and body. Month-long tests read it as the independent record of what the
// API returned (and so of what text the tool may still hold), and point it at a new simulator when
// the service changes (a release, a scale, an outage).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { LOOKUPS, type Lookup } from "../../src/contract/fields.js";

export interface Returned {
  /** the test's label for the time it was returned (a night) */
  tag: number;
  at: number;
  lookup: Lookup;
  /** compact, upper case */
  postcode: string;
  status: number;
  /** the 200 body, parsed */
  body: unknown;
}

export interface RecordingProxy {
  url: string;
  /** everything the API answered, in order */
  returned: Returned[];
  /** every request of a lookup that went on to the API, when it arrived */
  sent: { tag: number; at: number; lookup: Lookup }[];
  /** the simulator requests go to from now on */
  target: string;
  /** labels what is returned from now on */
  tag: number;
  /** called before each request is forwarded, with how many of this tag came before it */
  onRequest: ((seenThisTag: number) => void) | null;
  close(): Promise<void>;
}

function lookupOf(path: string): { lookup: Lookup; postcode: string } | null {
  for (const lookup of LOOKUPS) {
    const prefix = `/${lookup}/coverage/`;
    if (path.startsWith(prefix)) return { lookup, postcode: decodeURIComponent(path.slice(prefix.length)).replace(/\s+/g, "").toUpperCase() };
  }
  return null;
}

export async function startRecordingProxy(target: string, now: () => number): Promise<RecordingProxy> {
  const seen = new Map<number, number>();
  const proxy: RecordingProxy = { url: "", returned: [], sent: [], target, tag: 0, onRequest: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    const tag = proxy.tag;
    const n = seen.get(tag) ?? 0;
    seen.set(tag, n + 1);
    proxy.onRequest?.(n);
    const url = new URL(req.url ?? "/", proxy.target);
    const asked = lookupOf(url.pathname);
    if (asked) proxy.sent.push({ tag, at: now(), lookup: asked.lookup });
    const upstream = http.request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on("data", (c: Buffer) => chunks.push(c));
      answer.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const pair = asked;
        const status = answer.statusCode ?? 0;
        if (pair) {
          let body: unknown = null;
          if (status === 200) body = JSON.parse(bytes.toString("utf8")) as unknown;
          proxy.returned.push({ tag, at: now(), ...pair, status, body });
        }
        res.writeHead(status, answer.headers);
        res.end(bytes);
      });
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

/** The address rows of a 200 body (the spec's array form or the live service's object). */
export function availability(body: unknown): Record<string, unknown>[] {
  const top = (Array.isArray(body) ? body[0] : body) as { Availability?: Record<string, unknown>[] } | undefined;
  return top?.Availability ?? [];
}
