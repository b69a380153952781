// What a batch runs with: the pipeline's own declaration of its settings. The CLI turns flags and
// environment into one (buildConfig); its batch option table (BATCH_OPTIONS) is checked against
// BatchSettings by the compiler, one entry per field, so the pipeline never imports the CLI.
import type { Lookup } from "../contract/fields.js";
import type { MobileScaleChoice } from "../contract/mobile-scales.js";
import type { Premises } from "../contract/open-data.js";
import type { FetchOrder } from "../plan/sample-order.js";
import type { LogFormat } from "../log/logger.js";

/** One field per batch option, as its check returns it (durations and times in milliseconds). */
export interface BatchSettings {
  in: string;
  column: string | undefined;
  db: string;
  out: string;
  lookups: Lookup[];
  /** null with --simulate: the CLI hands the batch the simulator's address */
  baseUrl: URL | null;
  providers: string[];
  concurrency: number;
  /** requests per minute per lookup */
  rate: number;
  retries: number;
  timeout: number;
  maxAge: number;
  attribution: string | null;
  /** null: kept for ever */
  retention: number | null;
  refresh: boolean;
  maxRequests: number | null;
  outageLimit: number;
  probe: number;
  order: FetchOrder;
  release: string | null;
  monthlyQuota: Partial<Record<Lookup, number>> | null;
  /** days, or null for the calendar month */
  quotaPeriod: number | null;
  /** epoch ms */
  quotaStart: number | null;
  quotaResetDay: number;
  spendAll: boolean;
  simulate: boolean;
  simulateRelease: number;
  keyFile: string | undefined;
  progress: boolean | undefined;
  logFormat: LogFormat;
  quiet: boolean;
  verbose: boolean;
  reports: boolean;
  groupBy: string[] | undefined;
  mobileScale: MobileScaleChoice;
  goodRating: number | undefined;
  areaFile: string | undefined;
  openData: string | null;
  openDataPremises: Premises;
  pingUrl: URL | null;
  metricsFile: string | null;
  uprnColumn: string | undefined;
  workbookRows: number;
}

export interface BatchConfig extends BatchSettings {
  keys: Partial<Record<Lookup, string>>;
  /** what the runs table records: the options, never a key */
  recordedArgs: Record<string, unknown>;
}
