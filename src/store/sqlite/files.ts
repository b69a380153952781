// The files SQLite keeps for one database: the file itself and the companions it makes beside it
// (the write-ahead log, its shared-memory index, a rollback journal), all named after the database.
export const SQLITE_COMPANION_SUFFIXES = ["-wal", "-shm", "-journal"] as const;

/** The database file and every companion SQLite may keep beside it. */
export function sqliteFiles(path: string): string[] {
  return [path, ...SQLITE_COMPANION_SUFFIXES.map((suffix) => path + suffix)];
}
