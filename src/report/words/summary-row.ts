// One row of summary.csv and of the workbook's Summary sheet: the shape every figure room gives its
// summary rows in. A leaf: it imports nothing, so any room may name it.
/** One row of summary.csv (and of the workbook's Summary sheet). */
export interface SummaryRow {
  section: string;
  /** the figure's plain-English name */
  figure: string;
  /** a count, or a value for the About rows */
  count: number | string | null;
  /** the denominator of the share, null when the figure has none */
  of: number | null;
  /** a share given as such (an estimate, 0-1), instead of count / of; with its 95% interval's ends */
  share?: number | null | undefined;
  low?: number | null | undefined;
  high?: number | null | undefined;
  /** what the denominator counts, e.g. "addresses the broadband lookup returned" */
  ofWhat: string;
}
