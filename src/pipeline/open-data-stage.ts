// --open-data: Ofcom's open postcode files into the store, once per release. The source's
// fingerprint (names, sizes, times) tells an archive already imported, which is then not read.
import { OpenDataError, OpenDataStopped, readOpenData, sourceFingerprint } from "../input/open-data.js";
import type { Logger } from "../log/logger.js";
import type { Store } from "../store/store.js";

/** Imports the release at `path` unless it is the one stored; a problem is one line, and the stored release stays. */
export async function importOpenData(
  store: Store,
  path: string,
  run: { runId: number | null; now: () => string },
  log: Logger,
  signal?: AbortSignal,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const current = await store.openData.current();
  const failed = (err: unknown) => {
    if (!(err instanceof OpenDataError)) throw err;
    return { ok: false as const, message: err.message + (current ? ` (the stored release ${current.month} is kept)` : "") };
  };
  let fingerprint: string;
  try {
    fingerprint = sourceFingerprint(path);
  } catch (err) {
    return failed(err);
  }
  if (current?.fingerprint === fingerprint) {
    log.info(`open data: release ${current.month} (r${current.revision}) from ${path} already imported (${current.postcodes} postcodes); not read again`);
    return { ok: true };
  }
  const started = Date.now();
  const writer = await store.openData.startImport();
  try {
    const read = await readOpenData(path, writer.row, signal);
    if (read.badPostcodes.count > 0)
      log.warn(`open data: ${read.badPostcodes.count} rows with no valid UK postcode skipped (the first: ${read.badPostcodes.first})`, {
        event: "open_data_skipped",
        rows: read.badPostcodes.count,
      });
    const imported = await writer.commit({
      month: read.month,
      revision: read.revision,
      source: path,
      fingerprint,
      importedAt: run.now(),
      files: read.files,
      runId: run.runId,
    });
    const seconds = (Date.now() - started) / 1000;
    log.info(
      `open data: imported release ${imported.month} (r${imported.revision}) from ${path}: ${read.files} files, ` +
        `${imported.postcodes} postcodes (all premises), ${imported.residential} residential, in ${seconds.toFixed(1)} s` +
        (current ? `; replaces release ${current.month}` : ""),
      { event: "open_data", month: imported.month, postcodes: imported.postcodes, residential: imported.residential, seconds },
    );
    return { ok: true };
  } catch (err) {
    await writer.rollback();
    // a signal: the run stops as it does for one at any other step; nothing of this import is kept
    if (err instanceof OpenDataStopped) {
      log.warn(`open data: import from ${path} stopped; nothing of it is kept` + (current ? ` (the stored release ${current.month} stays)` : ""));
      return { ok: true };
    }
    return failed(err);
  }
}
