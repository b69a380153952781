// A cron monitor's ping (the healthchecks.io convention, which Cronitor and others accept too):
// URL/start when the night begins, URL/<exit code> when it ends, with the log's last lines as the
// body. A monitor that is down, slow or refusing never fails or holds up the run: each ping has a
// short timeout and its failure is one warning. A monitor that refuses POST (405 or 501: Uptime
// Kuma's push URLs, a plain web server) is sent the same ping as a GET, without the body.

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

/** The answers that say the monitor takes no POST at this URL: the ping goes again as a GET. */
const POST_REFUSED = new Set([405, 501]);

/**
 * Sends one ping; resolves to null when the monitor took it, else why not (never rejects).
 * `contentType`: the body's, as the log writes it (plain text, or JSON lines).
 */
export async function ping(base: URL, what: "start" | number, body: string, timeoutMs = PING_TIMEOUT_MS, contentType = "text/plain; charset=utf-8"): Promise<string | null> {
  const target = pingTarget(base, what);
  const signal = AbortSignal.timeout(timeoutMs);
  const send = async (method: "POST" | "GET"): Promise<number> => {
    const res = await fetch(target, {
      method,
      ...(method === "POST" ? { body, headers: { "content-type": contentType, "user-agent": "postcode-coverage" } } : { headers: { "user-agent": "postcode-coverage" } }),
      redirect: "follow",
      signal,
    });
    await res.body?.cancel().catch(() => {});
    return res.status;
  };
  try {
    let status = await send("POST");
    if (POST_REFUSED.has(status)) {
      const posted = status;
      status = await send("GET");
      if (status < 200 || status > 299) return `the monitor answered ${posted} to POST and ${status} to GET`;
    }
    return status >= 200 && status <= 299 ? null : `the monitor answered ${status}`;
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
    return e.cause?.code ?? e.message;
  }
}
