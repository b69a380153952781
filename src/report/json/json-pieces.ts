// JSON.stringify(value, null, indent)'s text in pieces: a summary of tens of thousands of groups'
// estimates is tens of megabytes of text, which as one string (and then one buffer) made the
// largest moment of a report's memory. The text is the same, byte for byte
// (test/summary-json.test.ts); the pieces are joined into chunks of about 64 KiB.

const CHUNK_CHARS = 64 * 1024;

/** The text JSON.stringify(value, null, indent) gives, in chunks of about 64 KiB. */
export function* prettyJsonChunks(value: unknown, indent = 2): Generator<string> {
  let chunk = "";
  for (const piece of pieces(jsonValue(value, ""), "", " ".repeat(indent))) {
    chunk += piece;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}

/** What JSON.stringify reads of a value: toJSON's answer when it has one (a Date, a packed figure). */
function jsonValue(value: unknown, key: string): unknown {
  const toJSON = (value as { toJSON?: unknown } | null | undefined)?.toJSON;
  return typeof toJSON === "function" ? (toJSON as (key: string) => unknown).call(value, key) : value;
}

/** A value JSON leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown) => value === undefined || typeof value === "function" || typeof value === "symbol";

/** Values of at most this many nodes are written by JSON.stringify in one piece: a piece for every number was slow. */
const SMALL_NODES = 512;

/** Whether a value has at most `budget` nodes (each value inside it one), counted until the budget runs out. */
function small(value: unknown, budget = { left: SMALL_NODES }): boolean {
  if (--budget.left < 0) return false;
  if (value === null || typeof value !== "object") return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) if (!small(item, budget)) return false;
  return true;
}

/** The pieces of a value toJSON has already been asked about. */
function* pieces(value: unknown, margin: string, indent: string): Generator<string> {
  if (value === null || typeof value !== "object" || small(value)) {
    // JSON's strings hold no raw line break: each of its lines is moved in by the margin
    yield (JSON.stringify(value, null, indent) ?? "null").replaceAll("\n", `\n${margin}`);
    return;
  }
  const inner = margin + indent;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      yield (i === 0 ? "[\n" : ",\n") + inner;
      const item = jsonValue(value[i], String(i));
      yield* omitted(item) ? ["null"] : pieces(item, inner, indent);
    }
    return yield `\n${margin}]`;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    const item = jsonValue((value as Record<string, unknown>)[key], key);
    if (omitted(item)) continue;
    yield `${first ? "{\n" : ",\n"}${inner}${JSON.stringify(key)}: `;
    first = false;
    yield* pieces(item, inner, indent);
  }
  yield first ? "{}" : `\n${margin}}`;
}
