// Where each postcode is: the latitude and longitude columns of an --area-file, found by header
// across the ONS directory's releases (ONSPD and NSPL: `lat`, `long`) and other sources
// (`latitude`, `longitude`). The directory gives postcodes without a grid reference the latitude
// 99.999999 (and longitude 0): that, an empty cell or anything outside WGS84's range is unknown.

/** The report postcode table's coordinate columns (WGS84 degrees; empty when unknown). */
export const COORDINATE_COLUMNS = ["Latitude", "Longitude"] as const;

/** The ONS directory's "no grid reference" latitude. */
const NO_GRID_LATITUDE = 99.999999;

const LATITUDE_HEADERS = ["lat", "latitude"];
const LONGITUDE_HEADERS = ["long", "longitude", "lon", "lng"];

export interface CoordinateColumns {
  latitude: number;
  longitude: number;
}

const fold = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, "");

/** The indexes of the latitude and longitude columns; null unless the header has both. */
export function findCoordinateColumns(columns: readonly string[]): CoordinateColumns | null {
  const find = (names: string[]) => {
    for (const name of names) {
      const i = columns.findIndex((c) => fold(c) === name);
      if (i >= 0) return i;
    }
    return -1;
  };
  const latitude = find(LATITUDE_HEADERS);
  const longitude = find(LONGITUDE_HEADERS);
  return latitude < 0 || longitude < 0 ? null : { latitude, longitude };
}

export interface LatLon {
  latitude: number;
  longitude: number;
}

/** The cells as a position; null when either is empty, not a number, out of range or the placeholder. */
export function parseCoordinates(latitudeCell: string | undefined, longitudeCell: string | undefined): LatLon | null {
  const lat = (latitudeCell ?? "").trim();
  const lon = (longitudeCell ?? "").trim();
  if (lat === "" || lon === "") return null;
  const latitude = Number(lat);
  const longitude = Number(lon);
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  if (latitude === NO_GRID_LATITUDE || Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  return { latitude, longitude };
}
