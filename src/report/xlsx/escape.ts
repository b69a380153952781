// Text as SpreadsheetML holds it. XML 1.0 cannot carry most control characters nor lone UTF-16
// surrogates; ECMA-376 (Part 1, 22.9.2.19 ST_Xstring) writes a character XML cannot hold as
// _xHHHH_, so a literal "_x0041_" in the text has its underscore escaped the same way (_x005F_).
// Lone surrogates have no UTF-8 form at all: they become U+FFFD, as any UTF-8 encoder makes them.

// the control characters are what this escapes
// eslint-disable-next-line no-control-regex
const SPECIAL = /[&<>"]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|_(?=x[0-9A-Fa-f]{4}_)/;
const SPECIAL_ALL = new RegExp(SPECIAL.source, "g");

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

function replace(c: string): string {
  const entity = ENTITIES[c];
  if (entity) return entity;
  const code = c.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdfff) return "\uFFFD";
  return `_x${code.toString(16).toUpperCase().padStart(4, "0")}_`;
}

/** `s` as XML text or a double-quoted attribute value (`]]>` is safe too: `>` is escaped). */
export function xmlText(s: string): string {
  // most cells need nothing: one test, no copy
  return SPECIAL.test(s) ? s.replace(SPECIAL_ALL, replace) : s;
}

/** A sheet's name as a formula refers to it: quoted, a quote inside doubled. */
export function sheetReference(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}
