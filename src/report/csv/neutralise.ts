// Spreadsheet formula injection (OWASP "CSV Injection"): a text cell whose first character makes
// Excel or LibreOffice start a formula gets a leading apostrophe. Plain numbers such as "-5" or
// "+3.5" cannot be formulas and are left alone, so a user's numeric input columns survive.

// A tab or CR, or = + - @ (and the full-width forms that Apple Numbers normalises to them) with
// something after it: a lone "-" (a common "none" in a list) starts no formula and stays as written.
const FORMULA_START = /^(?:[\t\r]|[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]\s*\S)/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function looksLikeFormula(text: string): boolean {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text);
}

export function neutraliseFormula(text: string): string {
  return looksLikeFormula(text) ? `'${text}` : text;
}
