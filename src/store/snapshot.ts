// The seam between the store and the reports: one consistent read of the store, over one scope (a
// run's postcodes, or everything stored). The reports' compute step asks a SnapshotSource for a
// snapshot and turns what it reads into figures and row streams; renderers never see the store.
// (Issue 20: this file is the agreed seam; the ReportSnapshot's members are filled in by the
// report side.)

/** Which postcodes a report covers: one run's input (default the last run), or everything stored. */
export interface ScopeRequest {
  runId?: number | undefined;
  all?: boolean | undefined;
}

/** Everything the reports and the export read, from one consistent state of the store. */
export interface ReportSnapshot {
  readonly engine: string;
}

export interface SnapshotSource {
  /**
   * Runs `work` on one consistent read of the store (a read transaction held until `work` settles);
   * temporary state the snapshot made is dropped afterwards, also after a failure.
   */
  snapshot<T>(request: ScopeRequest, work: (snapshot: ReportSnapshot) => Promise<T>, options?: { onWarning?: (message: string) => void }): Promise<T>;
}
