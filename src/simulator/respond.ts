// Writing responses: JSON bodies are prepared Buffers, so a request costs no serialisation.
import type { ServerResponse } from "node:http";

const JSON_TYPE = "application/json; charset=utf-8";

export const jsonBuffer = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8");

/** A complete response; a null body sends none (503). */
export function send(res: ServerResponse, status: number, body: Buffer | null, headers?: Record<string, string>): void {
  if (body === null) res.writeHead(status, { "content-length": 0, ...headers });
  else res.writeHead(status, { "content-type": JSON_TYPE, "content-length": body.length, ...headers });
  res.end(body ?? undefined);
}

/** Headers promising the whole body, part of it, then a dropped connection. */
export function sendPartial(res: ServerResponse, status: number, body: Buffer): void {
  res.writeHead(status, { "content-type": JSON_TYPE, "content-length": body.length });
  res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))), () => res.destroy());
}
