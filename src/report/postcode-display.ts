// Postcodes are stored compact (SW1A2AA); reports show them as people write them (SW1A 2AA).
// Every valid UK postcode ends in a 3-character inward code, so the space goes before the last 3.
// Built in SQL, so that the report's postcode table is one statement and sorts in display order.

export function displayPostcodeSql(column: string): string {
  return `(CASE WHEN length(${column}) > 3 THEN substr(${column}, 1, length(${column}) - 3) || ' ' || substr(${column}, -3) ELSE ${column} END)`;
}
