// The land and borders under the map: Natural Earth's countries as the world-atlas package ships
// them (TopoJSON; the data is public domain, the package ISC), at 1:50m for a list that spans a
// region and 1:10m for one inside a county, where the coarser coast would cut through postcodes.
// Parsed once per process; only the countries whose bounds meet the map are drawn.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { geoBounds, type GeoPermissibleObjects } from "d3-geo";
import { feature } from "topojson-client";
import type { Feature, FeatureCollection, Geometry } from "geojson";
import type { GeometryCollection, Topology } from "topojson-specification";

export type Resolution = "50m" | "10m";

interface Country {
  feature: Feature<Geometry>;
  /** [[west, south], [east, north]]; null for one that crosses the antimeridian (none is near the UK) */
  bounds: [[number, number], [number, number]] | null;
}

const require = createRequire(import.meta.url);
const loaded = new Map<Resolution, Country[]>();

function countries(resolution: Resolution): Country[] {
  let list = loaded.get(resolution);
  if (!list) {
    const topology = JSON.parse(readFileSync(require.resolve(`world-atlas/countries-${resolution}.json`), "utf8")) as Topology<{ countries: GeometryCollection }>;
    const collection = feature(topology, topology.objects.countries) as FeatureCollection<Geometry>;
    list = collection.features.map((f) => {
      const b = geoBounds(f as GeoPermissibleObjects);
      return { feature: f, bounds: b[0][0] > b[1][0] ? null : b };
    });
    loaded.set(resolution, list);
  }
  return list;
}

/** The countries whose bounds meet [[west, south], [east, north]]. */
export function countriesWithin(box: [[number, number], [number, number]], resolution: Resolution): Feature<Geometry>[] {
  const [[w, s], [e, n]] = box;
  return countries(resolution)
    .filter((c) => c.bounds !== null && c.bounds[0][0] <= e && c.bounds[1][0] >= w && c.bounds[0][1] <= n && c.bounds[1][1] >= s)
    .map((c) => c.feature);
}
