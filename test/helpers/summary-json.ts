// Every summary.json a test reads is checked against the schema shipped with the package
// (schema/summary.schema.json): a field the code writes and the schema does not document fails.
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { SummaryJson } from "../../src/report/json/summary-json.js";

export const SUMMARY_SCHEMA = JSON.parse(readFileSync(new URL("../../schema/summary.schema.json", import.meta.url), "utf8")) as { $id: string; properties: { schemaVersion: { const: number } } };
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(SUMMARY_SCHEMA);

/** The errors of a summary.json value against the schema, one line each; none when it is valid. */
export function summarySchemaErrors(value: unknown): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
}

/** A summary.json value, checked against the schema (throws naming every difference). */
export function checkedSummary<T = SummaryJson>(value: unknown, where = "summary.json"): T {
  const errors = summarySchemaErrors(value);
  if (errors.length > 0) throw new Error(`${where} does not match schema/summary.schema.json:\n${errors.slice(0, 20).join("\n")}`);
  return value as T;
}

/** summary.json read from a file and checked against the schema. */
export function readSummaryJson<T = SummaryJson>(path: string): T {
  return checkedSummary<T>(JSON.parse(readFileSync(path, "utf8")), path);
}
