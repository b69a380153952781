// A cron monitor's ping (the healthchecks.io convention, which Cronitor and others accept too):
// URL/start when the night begins, URL/<exit code> when it ends, with the log's last lines as the
// body. A monitor that is down, slow or refusing never fails or holds up the run: each ping has a
// short timeout and its failure is one warning.

/** How long a ping may take before it is given up. */
export const PING_TIMEOUT_MS = 10_000;
/** healthchecks.io keeps the first 100 kB of a body; a night's tail is far less. */
const MAX_BODY_BYTES = 90_000;

/** URL/start or URL/<code>: the base URL's own query (a token) is kept. */
export function pingTarget(base: URL, what: "start" | number): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${what}`;
  return url;
}

/** The body's text: the last lines, cut from the front to the size a monitor keeps. */
export function pingBody(lines: readonly string[]): string {
  let body = lines.join("\n") + (lines.length > 0 ? "\n" : "");
  while (Buffer.byteLength(body) > MAX_BODY_BYTES) body = body.slice(body.indexOf("\n") + 1 || body.length);
  return body;
}

/** Sends one ping; resolves to null when the monitor took it, else why not (never rejects). */
export async function ping(base: URL, what: "start" | number, body: string, timeoutMs = PING_TIMEOUT_MS): Promise<string | null> {
  const target = pingTarget(base, what);
  try {
    const res = await fetch(target, {
      method: "POST",
      body,
      headers: { "content-type": "text/plain; charset=utf-8", "user-agent": "postcode-coverage" },
      redirect: "follow",
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    return res.ok ? null : `the monitor answered ${res.status}`;
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
    return e.cause?.code ?? e.message;
  }
}
