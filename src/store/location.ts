// What a --db location names, for code outside the store: a PostgreSQL URL, or a file path of the
// SQLite engine. The rules live with the engine that reads URLs (postgres/url.ts).
export { isPostgresUrl, passwordInArgv } from "./postgres/url.js";
