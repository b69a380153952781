// The words that mark a figure counted over the answered postcodes alone while some of the list's
// postcodes are unanswered: one declaration, which summary.csv, the workbook's Summary, report.html,
// the batch's closing lines and the map put in the very cell or sentence that gives the figure, so
// that no partial figure can be copied out as the whole list's.

export const ANSWERED_ONLY = "answered postcodes only";

/** Some of the list's postcodes are unanswered: the counted figures are the answered ones' alone (the lead estimates the whole list). */
export const isAnsweredOnly = (s: { estimates?: { exact: boolean } | null | undefined }): boolean => !!s.estimates && !s.estimates.exact;

/** A figure's label, "Addresses below superfast … (answered postcodes only)" when partial. */
export const answeredOnlyLabel = (label: string, partial: boolean): string => (partial ? `${label} (${ANSWERED_ONLY})` : label);

/** A sentence giving figures, "Answered postcodes only: 14.5% of addresses …" when partial. */
export const answeredOnlySentence = (sentence: string, partial: boolean): string =>
  partial ? `${ANSWERED_ONLY.charAt(0).toUpperCase()}${ANSWERED_ONLY.slice(1)}: ${sentence}` : sentence;
