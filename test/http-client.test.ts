// The HTTP client against a tiny local server that misbehaves on purpose: a 10 MB body (the
// response corpus's size-cap case), a server that never answers, a connection dropped mid-body.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkError, createHttpClient, type HttpClient } from "../src/fetch/http-client.js";

const TEN_MB = 10 * 1024 * 1024;
const CAP = 8 * 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, "x");

let server: http.Server;
let base: string;
let client: HttpClient;
const seenHeaders: http.IncomingHttpHeaders[] = [];
/** Request timers, fired by hand: no test waits out the 400 ms. */
const timers: { fire: () => void; ms: number }[] = [];
/** Resolved when the server has a /stall request. */
let stalled: () => void = () => {};
const nextStall = () => new Promise<void>((resolve) => (stalled = resolve));

function sendBig(res: http.ServerResponse, declare: boolean): void {
  let written = 0;
  res.writeHead(200, declare ? { "content-type": "application/json", "content-length": TEN_MB } : { "content-type": "application/json" });
  const pump = () => {
    while (written < TEN_MB) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.on("error", () => {}); // the client hangs up: expected
  pump();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenHeaders.push(req.headers);
    switch (req.url) {
      case "/ok":
        res.writeHead(200, { "content-type": "application/json", "x-extra": "1" });
        return void res.end('{"PostCode":"BR12WJ"}');
      case "/big-declared":
        return sendBig(res, true);
      case "/big-chunked":
        return sendBig(res, false);
      case "/stall":
        return stalled(); // never answers
      case "/reset":
        res.writeHead(200, { "content-type": "application/json", "content-length": 1000 });
        return void res.write("x".repeat(100), () => res.destroy());
      default:
        res.writeHead(404);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createHttpClient({
    maxSockets: 4,
    timeoutMs: 400,
    maxBodyBytes: CAP,
    setTimer: (fire, ms) => {
      const timer = { fire, ms };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    },
  });
});

afterAll(async () => {
  client.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(path: string, signal?: AbortSignal): Promise<NetworkError> {
  const err = await client.get(new URL(base + path), {}, signal).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NetworkError);
  return err as NetworkError;
}

describe("createHttpClient", () => {
  it("returns status, headers and body, and sends the caller's headers", async () => {
    const r = await client.get(new URL(`${base}/ok`), { "Ocp-Apim-Subscription-Key": "k" });
    expect(r).toMatchObject({ status: 200, body: '{"PostCode":"BR12WJ"}' });
    expect(r.headers["x-extra"]).toBe("1");
    expect(seenHeaders.at(-1)).toMatchObject({ "ocp-apim-subscription-key": "k", accept: "application/json" });
  });

  it("refuses a 10 MB body announced by Content-Length before reading it", async () => {
    const err = await failure("/big-declared");
    expect(err.message).toBe(`response body exceeds the ${CAP}-byte limit for /big-declared (Content-Length ${TEN_MB})`);
  });

  it("refuses a 10 MB body sent without a length once it passes the cap", async () => {
    const err = await failure("/big-chunked");
    expect(err.message).toBe(`response body exceeds the ${CAP}-byte limit for /big-chunked`);
  });

  it("gives up on a server that never answers after its timeout", async () => {
    const arrived = nextStall();
    const pending = failure("/stall");
    await arrived;
    // one timer for the whole request, of the configured length; firing it is the timeout
    expect(timers.map((t) => t.ms)).toEqual([400]);
    timers[0]!.fire();
    const err = await pending;
    expect(err.message).toBe("no complete answer within 400 ms for /stall");
    expect((err as NetworkError).failure).toBe("timeout");
    expect(timers).toEqual([]);
  });

  it("reports a connection dropped mid-body", async () => {
    expect((await failure("/reset")).message).toMatch(/^(connection closed mid-body|connection reset) .*\/reset$/);
  });

  it("stops at once when the caller aborts", async () => {
    const controller = new AbortController();
    const arrived = nextStall();
    const pending = failure("/stall", controller.signal);
    await arrived;
    controller.abort();
    expect((await pending).message).toBe("aborted /stall");
    const aborted = AbortSignal.abort();
    expect((await failure("/ok", aborted)).message).toBe("aborted /ok");
  });

  it("reports a refused connection", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await client.get(new URL(`http://127.0.0.1:${port}/x`), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toBe("connection refused for /x");
    expect((err as NetworkError).failure).toBe("refused");
  });
});
