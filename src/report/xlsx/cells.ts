// One row of a worksheet as XML: numbers as numbers, text as inline strings (no shared-strings
// table to hold in memory), empty cells left out (the column's style still formats them).
import { xmlText } from "./escape.js";
import { MAX_CELL_CHARS } from "./limits.js";

/** A cell's value: text, a number, a boolean; null or undefined for an empty cell. */
export type CellValue = unknown;

/** `r`: the row's number; `letters`: each column's letters; `styles`: each cell's format number (0: none). */
export function rowXml(r: number, values: readonly CellValue[], letters: readonly string[], styles: readonly number[], height?: number): string {
  let xml = height === undefined ? `<row r="${r}">` : `<row r="${r}" ht="${height}" customHeight="1">`;
  for (let c = 0; c < values.length; c++) {
    const v = values[c];
    if (v === null || v === undefined) continue;
    const s = styles[c] ? ` s="${styles[c]}"` : "";
    const ref = `${letters[c]}${r}`;
    if (typeof v === "number") {
      // NaN and infinities have no form in a cell: the cell stays empty
      if (Number.isFinite(v)) xml += `<c r="${ref}"${s}><v>${v}</v></c>`;
    } else if (typeof v === "bigint") xml += `<c r="${ref}"${s}><v>${v}</v></c>`;
    else if (typeof v === "boolean") xml += `<c r="${ref}"${s} t="b"><v>${v ? 1 : 0}</v></c>`;
    else {
      const text = String(v);
      if (text.length > MAX_CELL_CHARS)
        throw new Error(`cell ${ref}: ${text.length.toLocaleString("en-GB")} characters; a worksheet cell holds at most ${MAX_CELL_CHARS.toLocaleString("en-GB")}`);
      // spaces at either end survive only when the text says to keep them
      const space = text.length > 0 && (text.charCodeAt(0) <= 32 || text.charCodeAt(text.length - 1) <= 32) ? ' xml:space="preserve"' : "";
      xml += `<c r="${ref}"${s} t="inlineStr"><is><t${space}>${xmlText(text)}</t></is></c>`;
    }
  }
  return `${xml}</row>`;
}
