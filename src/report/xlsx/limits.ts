// What a worksheet holds (Excel's specifications and limits).

/** The most characters a worksheet cell holds. */
export const MAX_CELL_CHARS = 32_767;
/** Columns of a worksheet (XFD). */
export const MAX_COLUMNS = 16_384;
/** Characters of a sheet's name. */
export const MAX_SHEET_NAME = 31;
