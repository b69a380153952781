// The coverage API simulator: an HTTP stand-in for the real service and its gateway, with a
// deterministic synthetic dataset and injectable faults.
export { startSimulator, type Simulator } from "./server.js";
export { DEFAULT_KEY, DEFAULT_OPTIONS, resolveOptions, type SimulatorOptions } from "./options.js";
export type { SimulatorCounters } from "./counters.js";
export { generatePostcode, UNKNOWN_SHARE, type SimAddress, type SimPostcode } from "./data.js";
export { generatePostcodes } from "./postcode-gen.js";
export { releaseDbName, RELEASE_CHANGE_SHARE } from "./releases.js";
export { compactPostcode, displayPostcode } from "../contract/postcode.js";
export {
  okBody,
  okBodyText,
  okBodyBytes,
  notFoundBody,
  generalErrorBody,
  NOT_FOUND_MESSAGE,
  GENERAL_ERROR_MESSAGE,
  LIVE_DB_NAME,
  LIVE_BODY_EXTRAS,
  LIVE_ITEM_EXTRAS,
} from "./bodies.js";
export { MISSING_KEY_MESSAGE, INVALID_KEY_MESSAGE, formatHms } from "./gateway.js";
export { FAULT_KINDS, MALFORMED_KINDS, type FaultKind, type MalformedKind, type FaultRates } from "./faults.js";
export { simulatedOpenDataArchive, simulatedDataMonth, openDataRow } from "./open-data.js";
export { AREA_CENTRES, simulatedAreaFile, simulatedCoordinates } from "./places.js";
