// This program's version, read from package.json, the one place it is written: what every command's
// --version prints and what the store records as the version that last wrote a database.
import { readFileSync } from "node:fs";

let version: string | undefined;

/** The version of package.json beside src/ (or dist/): "0.2.0". */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
  return version;
}
