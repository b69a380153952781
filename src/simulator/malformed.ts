// Broken bodies for the malformed fault: cut JSON, invalid JSON, or valid JSON that breaks the
// documented contract (a rating of 5, a speed of -2, a missing required field).
import { ADDRESS_FIELDS, SPEED_FIELDS, mobileFields, type Lookup } from "../contract/fields.js";
import type { Rng } from "./hash.js";
import type { MalformedKind } from "./faults.js";

/** The body's address items, wherever the dialect puts them. */
function itemsOf(body: unknown): Record<string, unknown>[] {
  const top = (Array.isArray(body) ? body[0] : body) as { Availability?: Record<string, unknown>[] };
  return top.Availability ?? [];
}

/**
 * `body` is the intact JSON text; `value` builds the same body as a fresh value (null for a 404,
 * where only the text-level kinds and a missing field apply).
 */
export function malformBody(
  kind: MalformedKind,
  body: Buffer,
  value: (() => unknown) | null,
  lookup: Lookup,
  providers: readonly string[],
  rng: Rng,
): Buffer {
  const text = body.toString("utf8");
  if (kind === "truncated") return Buffer.from(text.slice(0, 1 + Math.floor(rng.next() * (text.length - 2))), "utf8");
  if (kind === "invalid-json" || (kind === "out-of-range" && value === null)) return Buffer.from(text.replace('"', "'"), "utf8");
  if (value === null) {
    const notFound = JSON.parse(text) as Record<string, unknown>;
    delete notFound.PostCode;
    return Buffer.from(JSON.stringify(notFound), "utf8");
  }
  const broken = value();
  const items = itemsOf(broken);
  const item = items[Math.floor(rng.next() * items.length)]!;
  if (kind === "out-of-range") {
    if (lookup === "mobile") item[rng.pick(mobileFields(providers))] = 5;
    else item[rng.pick(SPEED_FIELDS)] = -2;
  } else {
    const required = lookup === "mobile" ? [...ADDRESS_FIELDS, ...mobileFields(providers)] : [...ADDRESS_FIELDS];
    delete item[rng.pick(required)];
  }
  return Buffer.from(JSON.stringify(broken), "utf8");
}
