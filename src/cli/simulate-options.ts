// npm run simulate's options: serves the simulated API. Its default key is the simulator's own
// (DEFAULT_KEY): the CLI is the one folder that may import the simulator.
import { parseLookups } from "./options/config-values.js";
import type { Lookup } from "../contract/fields.js";
import { MOBILE_SCALES, type MobileScale } from "../contract/mobile-scales.js";
import type { Dialect } from "../contract/types.js";
import { DEFAULT_KEY } from "../simulator/options.js";
import { oneOf, option, text, toNumber, wrapped } from "./options/engine.js";
import { SHARED_OPTIONS } from "./options/shared.js";

/** A number, or undefined when not given: the simulator checks its range and names the flag. */
const optionalNumber = (raw: number | string | undefined, name: string): number | undefined => (raw === undefined ? undefined : toNumber(raw, name));
const givenNumber = (raw: number | string | undefined, name: string): number => toNumber(raw!, name);
/** A share of answers from 0 to 1 (the simulator checks the range). */
const rate = (what: string) => option({ type: "number", default: 0, help: `share of ${what}`, parse: givenNumber });

export const SIMULATE_OPTIONS = {
  port: option({ type: "number", default: 8787, help: "port; 0 picks a free one", parse: givenNumber }),
  host: option({ type: "string", default: "127.0.0.1", help: "address to listen on", parse: (raw) => raw! }),
  seed: option({ type: "string", default: "1", help: "dataset and fault seed", parse: (raw) => raw! }),
  release: option({
    type: "number",
    default: 1,
    help: "dataset release: each one after 1 changes about a tenth of postcodes and the mobile DBName",
    parse: givenNumber,
  }),
  mobileScale: option({
    type: "string",
    default: "current",
    help: "the mobile rating scale served: current (0/3/4: None, Limited, Likely, as the service runs today) or legacy (0-4: Clear, Red, Amber, Green, Enhanced)",
    parse: oneOf<MobileScale>(...MOBILE_SCALES),
  }),
  dialect: option({
    type: "string",
    default: "live",
    help: "live: as production answers; spec: as documented",
    parse: oneOf<Dialect>("live", "spec"),
  }),
  key: option({ type: "string", default: DEFAULT_KEY, help: "subscription key required (both lookups unless --mobile-key)", parse: (raw) => raw! }),
  mobileKey: option({ type: "string", help: "separate key for the mobile lookup", parse: text }),
  providers: { ...SHARED_OPTIONS.providers, help: "mobile provider prefixes" },
  rateLimit: option({ type: "number", help: "requests per minute per key and lookup (default: no limit)", parse: optionalNumber }),
  rateWindowMs: option({ type: "number", default: 60_000, hidden: true, help: "the rate limit's window", parse: givenNumber }),
  quota: option({ type: "number", help: "requests per key and lookup before 403 (default: no quota)", parse: optionalNumber }),
  failRate: rate("answers that are 500"),
  unavailableRate: rate("answers that are 503"),
  latency: option({ type: "number", default: 0, help: "ms added to every backend answer", parse: givenNumber }),
  jitter: option({ type: "number", default: 0, help: "up to this many ms more, uniform", parse: givenNumber }),
  stallRate: rate("requests never answered"),
  resetRate: rate("answers cut off mid-body"),
  malformedRate: rate("answers with a broken body"),
  closed: option({
    type: "string",
    help: "fault mode: products that have closed (broadband, mobile or both): the gateway answers their paths 404 with its own body",
    parse: (raw, name): Lookup[] => (raw === undefined || raw.trim() === "" ? [] : wrapped(name, () => parseLookups(raw))),
  }),
  publishOpenData: option({
    type: "string",
    help: "write the simulator's open data for the postcodes of --postcodes into this folder (Ofcom's layout), then exit",
    parse: text,
  }),
  postcodes: option({ type: "string", help: "with --publish-open-data: a CSV of postcodes (as the batch reads its input)", parse: text }),
  areaFileFor: option({
    type: "string",
    help: "print an area file (ONS directory columns pcds, lat, long) with simulated coordinates for the postcodes of this CSV, and exit",
    parse: text,
  }),
};
