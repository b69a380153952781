// A small GET client over node:http(s): keep-alive connections, one timeout that covers
// connecting, waiting and reading (so a server that never answers is caught), and a body cap.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What kind of transport failure: refused/dns/tls before any success point at a wrong --base-url. */
export type NetworkFailure = "refused" | "dns" | "tls" | "timeout" | "reset" | "too_large" | "aborted" | "other";

/** A request that got no complete answer: refused, reset, timed out, too large. Retryable. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly failure: NetworkFailure = "other",
    /**
     * whether the request went out on a connection made to the server, so the API may have seen
     * (and its quota counted) it; a name that did not resolve or a connection refused never did
     */
    readonly reached = true,
  ) {
    super(message);
  }
}

export interface HttpClientOptions {
  maxSockets: number;
  timeoutMs: number;
  maxBodyBytes: number;
  /** the request timer; tests pass their own so no test waits out a real timeout */
  setTimer?: (fire: () => void, ms: number) => () => void;
  /** the host name resolver (node's by default); tests pass one that needs no network */
  lookup?: LookupFunction;
}

const realTimer = (fire: () => void, ms: number) => {
  const t = setTimeout(fire, ms);
  return () => clearTimeout(t);
};

export interface HttpClient {
  get(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpResponse>;
  close(): void;
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, maxFreeSockets: options.maxSockets };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function get(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpResponse> {
    const isHttps = url.protocol === "https:";
    const where = `${url.pathname}`;
    return new Promise<HttpResponse>((resolve, reject) => {
      let settled = false;
      let connected = false;
      const onAbort = () => fail(`aborted ${where}`, "aborted");
      const finish = () => {
        settled = true;
        cancelTimer();
        signal?.removeEventListener("abort", onAbort);
      };
      const fail = (message: string, failure: NetworkFailure = "other") => {
        if (settled) return;
        finish();
        req.destroy();
        reject(new NetworkError(message, failure, connected));
      };
      const req = (isHttps ? https : http).request(
        url,
        { method: "GET", headers: { accept: "application/json", ...headers }, agent: isHttps ? httpsAgent : httpAgent, ...(options.lookup ? { lookup: options.lookup } : {}) },
        (res) => {
          const tooLarge = `response body exceeds the ${options.maxBodyBytes}-byte limit for ${where}`;
          // A body announced as too large is refused before a byte of it is read.
          const declared = Number(res.headers["content-length"]);
          if (declared > options.maxBodyBytes) return fail(`${tooLarge} (Content-Length ${declared})`, "too_large");
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > options.maxBodyBytes) {
              fail(tooLarge, "too_large");
              return;
            }
            chunks.push(chunk);
          });
          res.on("end", () => {
            if (settled) return;
            // 'end' can follow an aborted socket; only a complete message counts.
            if (!res.complete) return fail(`connection closed mid-body for ${where}`, "reset");
            finish();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
          });
          res.on("aborted", () => fail(`connection closed mid-body for ${where}`, "reset"));
          res.on("error", (err) => fail(`${describe(err)} while reading ${where}`, failureOf(err)));
        },
      );
      const cancelTimer = (options.setTimer ?? realTimer)(
        () => fail(`no complete answer within ${options.timeoutMs} ms for ${where}`, "timeout"),
        options.timeoutMs,
      );
      // A kept-alive socket is connected already; a new one is once its TCP (and TLS) handshake is done.
      req.on("socket", (socket) => {
        if (!socket.connecting) connected = true;
        else socket.once(isHttps ? "secureConnect" : "connect", () => (connected = true));
      });
      req.on("error", (err) => fail(`${describe(err)} for ${where}`, failureOf(err)));
      if (signal?.aborted) fail(`aborted ${where}`, "aborted");
      else signal?.addEventListener("abort", onAbort, { once: true });
      req.end();
    });
  }

  return {
    get,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ECONNRESET") return "connection reset";
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "EPIPE") return "connection broken";
  return code ? `${code} ${err.message}` : err.message;
}

function failureOf(err: Error): NetworkFailure {
  const code = (err as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (code === "ECONNRESET" || code === "EPIPE") return "reset";
  if (/CERT|SSL|TLS|SELF_SIGNED|ERR_SSL/.test(code) || /certificate|ssl|tls/i.test(err.message)) return "tls";
  return "other";
}
