// npm run status's options: the last runs and what the database holds.
import { ConfigError } from "./options/config-values.js";
import { flag, option } from "./options/engine.js";
import { SHARED_OPTIONS } from "./options/shared.js";

export const STATUS_OPTIONS = {
  db: SHARED_OPTIONS.db,
  runs: option({
    type: "number",
    default: 10,
    help: "how many recent runs to list",
    parse: (raw, name): number => {
      if (!/^[1-9]\d{0,5}$/.test(String(raw))) throw new ConfigError(`${name}: expected a whole number >= 1, got ${JSON.stringify(String(raw))}`);
      return Number(raw);
    },
  }),
  json: option({ type: "boolean", default: false, help: "print JSON", parse: flag }),
};
