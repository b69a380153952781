// A `--db` that is a PostgreSQL URL rather than a SQLite path, and how such a URL may be shown.
// libpq's URL forms: postgres://user:password@host:port/db?param=value (also postgresql://); a
// password may sit in the user part or in a `password` parameter.

const URL_PATTERN = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;

/** Whether `--db` names a PostgreSQL database (a URL) rather than a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db);
}

interface UrlParts {
  scheme: string;
  user: string | null;
  password: string | null;
  host: string;
  path: string;
  params: string[];
}

function split(url: string): UrlParts | null {
  const m = URL_PATTERN.exec(url);
  if (!m) return null;
  const authority = m[2]!;
  const at = authority.lastIndexOf("@");
  const userInfo = at >= 0 ? authority.slice(0, at) : null;
  const colon = userInfo?.indexOf(":") ?? -1;
  return {
    scheme: m[1]!,
    user: userInfo === null ? null : colon >= 0 ? userInfo.slice(0, colon) : userInfo,
    password: userInfo !== null && colon >= 0 ? userInfo.slice(colon + 1) : null,
    host: authority.slice(at + 1),
    path: m[3]!,
    params: m[4] ? m[4].slice(1).split("&").filter((p) => p !== "") : [],
  };
}

/**
 * A parameter's name as the driver reads it: the URL parser drops tabs and newlines anywhere, a
 * query decodes `+` and percent escapes (`pass%77ord` is `password`). Any name ending in
 * "password" (sslpassword too) counts, whatever its case or surrounding blanks.
 */
function paramName(param: string): string {
  const raw = param.split("=", 1)[0]!.replace(/[\t\n\r]/g, "").replace(/\+/g, " ");
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return name.trim().toLowerCase();
}

const isPasswordParam = (param: string): boolean => paramName(param).endsWith("password");

/** What the WHATWG parser (the one `pg` uses) finds: a password in the user part or the query. */
function parserFindsPassword(url: string): boolean {
  try {
    const parsed = new URL(url.replace("@/", "@dummy/"));
    return parsed.password !== "" || [...parsed.searchParams.keys()].some((k) => k.trim().toLowerCase().endsWith("password"));
  } catch {
    return false;
  }
}

/** Whether the URL itself carries a password, in any spelling: its user part or a `password` parameter. */
export function urlHasPassword(url: string): boolean {
  const parts = split(url.replace(/[\t\n\r]/g, ""));
  return (parts !== null && (parts.password !== null || parts.params.some(isPasswordParam))) || parserFindsPassword(url);
}

/** The URL as it may be shown (logs, errors, status, run rows): without any password. */
export function redactUrl(url: string): string {
  const parts = split(url.replace(/[\t\n\r]/g, ""));
  if (!parts) return url.replace(/:[^:@/]*@/, "@");
  const params = parts.params.filter((p) => !isPasswordParam(p));
  return `${parts.scheme}${parts.user !== null ? `${parts.user}@` : ""}${parts.host}${parts.path}${params.length > 0 ? `?${params.join("&")}` : ""}`;
}

/**
 * Why a URL given on the command line is refused, or null: a password there shows in the process
 * list and the shell's history. `pg` reads PGPASSWORD and ~/.pgpass itself.
 */
export function passwordInArgv(url: string, flag: string): string | null {
  if (!urlHasPassword(url)) return null;
  return `${flag} ${redactUrl(url)}: a password in the URL is refused (the command line is visible to every user of the machine); set PGPASSWORD or put it in ~/.pgpass`;
}
