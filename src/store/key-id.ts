// The name a key goes by in the store (the shared pace): a one-way digest, so that the
// database never holds the key or anything that gives it back.
import { createHmac } from "node:crypto";

/** A fixed label: the digest is of this program's use of the key, not a bare hash of it. */
const LABEL = "postcode-coverage key id v1";

/** HMAC-SHA256 of the key under a fixed label, 16 hex characters. */
export function keyId(key: string): string {
  return createHmac("sha256", LABEL).update(key).digest("hex").slice(0, 16);
}
