// Where the list's postcodes are, as hexagonal bins on a map: a pure function from the located
// postcodes to what the SVG draws. The projection is transverse Mercator centred on the list (on a
// meridian through it, as the National Grid's is on 2°W), fitted to the list's extent plus a margin;
// the bins are hexagons of a fixed size on the page, so the map's size is bounded by the page, not
// by the list (a 200,000-postcode list draws no more hexagons than the page holds).
import { geoPath, geoTransverseMercator, type GeoProjection } from "d3-geo";
import { hexbin } from "d3-hexbin";
import type { Feature, Geometry, Polygon } from "geojson";
import { countriesWithin } from "./basemap.js";

/** One located postcode and its figures (null: the lookup has no answer for it). */
export interface MapPoint {
  latitude: number;
  longitude: number;
  broadbandAddresses: number | null;
  belowSuperfast: number | null;
  mobileAddresses: number | null;
  /** mobile addresses where no provider is good for indoor voice */
  voiceNotspots: number | null;
}

/** One hexagon: its centre on the page and the sums of its postcodes' figures. */
export interface MapBin {
  x: number;
  y: number;
  postcodes: number;
  /** its postcodes with addresses in each lookup's answers: the ones its colour comes from (a pending or not found postcode has none) */
  broadbandAnswered: number;
  mobileAnswered: number;
  broadbandAddresses: number;
  belowSuperfast: number;
  mobileAddresses: number;
  voiceNotspots: number;
}

export interface MapLayout {
  width: number;
  height: number;
  /** the hexagons' radius on the page, and across the ground in km (flat side to flat side) */
  radius: number;
  acrossKm: number;
  /** SVG path data: the countries (land) clipped to the map */
  land: string;
  bins: MapBin[];
}

const MAP_WIDTH = 560;
const MAX_HEIGHT = 720;
const MIN_HEIGHT = 260;
const HEX_RADIUS = 8;
/** the margin around the list's extent: a share of its span, at least about 500 m */
const MARGIN_SHARE = 0.08;
const MIN_MARGIN_DEGREES = 0.005;
const EARTH_KM = 6371;

const round1 = (v: number) => Math.round(v * 10) / 10;

/** The list's extent with its margin, as [[west, south], [east, north]]. */
function paddedExtent(points: readonly MapPoint[]): [[number, number], [number, number]] {
  let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity;
  for (const p of points) {
    w = Math.min(w, p.longitude);
    e = Math.max(e, p.longitude);
    s = Math.min(s, p.latitude);
    n = Math.max(n, p.latitude);
  }
  const dLon = Math.max((e - w) * MARGIN_SHARE, MIN_MARGIN_DEGREES / Math.cos(((s + n) / 2) * (Math.PI / 180)));
  const dLat = Math.max((n - s) * MARGIN_SHARE, MIN_MARGIN_DEGREES);
  return [
    [w - dLon, s - dLat],
    [e + dLon, n + dLat],
  ];
}

/** The extent as a polygon traced along its edges (a meridian and a parallel both bend in the projection). */
function extentPolygon([[w, s], [e, n]]: [[number, number], [number, number]]): Feature<Polygon> {
  const steps = 8;
  const ring: [number, number][] = [];
  for (let i = 0; i < steps; i++) ring.push([w + ((e - w) * i) / steps, s]);
  for (let i = 0; i < steps; i++) ring.push([e, s + ((n - s) * i) / steps]);
  for (let i = 0; i < steps; i++) ring.push([e - ((e - w) * i) / steps, n]);
  for (let i = 0; i < steps; i++) ring.push([w, n - ((n - s) * i) / steps]);
  ring.push(ring[0]!);
  // d3-geo's polygons wind clockwise: this ring is counter-clockwise, so reverse it
  return { type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [ring.reverse()] } };
}

/** The projection fitted to the extent, and the page's height for its shape. */
function fitProjection(extent: [[number, number], [number, number]]): { projection: GeoProjection; height: number } {
  const centre = (extent[0][0] + extent[1][0]) / 2;
  const area = extentPolygon(extent);
  const shape = geoTransverseMercator().rotate([-centre, 0]).fitWidth(MAP_WIDTH, area);
  const [[, y0], [, y1]] = geoPath(shape).bounds(area);
  const height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, y1 - y0)));
  const projection = geoTransverseMercator()
    .rotate([-centre, 0])
    .fitExtent(
      [
        [0, 0],
        [MAP_WIDTH, height],
      ],
      area,
    );
  projection.clipExtent([
    [0, 0],
    [MAP_WIDTH, height],
  ]);
  return { projection, height };
}

/** The hexagon path (relative, starting at its top vertex) for a radius, to one decimal. */
export function hexagonPath(radius: number): string {
  return hexbin().radius(radius).hexagon().replace(/-?\d+(\.\d+)?(e-?\d+)?/g, (v) => String(round1(Number(v)) + 0));
}

export function layoutMap(points: readonly MapPoint[]): MapLayout | null {
  if (points.length === 0) return null;
  const extent = paddedExtent(points);
  const { projection, height } = fitProjection(extent);
  const bins = hexbin<[number, number, MapPoint]>()
    .radius(HEX_RADIUS)
    .x((d) => d[0])
    .y((d) => d[1])(points.map((p) => [...(projection([p.longitude, p.latitude]) ?? [NaN, NaN]), p] as [number, number, MapPoint]))
    .map((bin): MapBin => {
      const sum = (of: (p: MapPoint) => number | null) => bin.reduce((s, d) => s + (of(d[2]) ?? 0), 0);
      return {
        x: round1(bin.x),
        y: round1(bin.y),
        postcodes: bin.length,
        broadbandAnswered: bin.filter((d) => (d[2].broadbandAddresses ?? 0) > 0).length,
        mobileAnswered: bin.filter((d) => (d[2].mobileAddresses ?? 0) > 0).length,
        broadbandAddresses: sum((p) => p.broadbandAddresses),
        belowSuperfast: sum((p) => p.belowSuperfast),
        mobileAddresses: sum((p) => p.mobileAddresses),
        voiceNotspots: sum((p) => p.voiceNotspots),
      };
    })
    .sort((a, b) => a.y - b.y || a.x - b.x);
  const land = geoPath(projection).digits(1);
  const countries = countriesWithin(extent, extent[1][1] - extent[0][1] > 3 ? "50m" : "10m");
  return {
    width: MAP_WIDTH,
    height,
    radius: HEX_RADIUS,
    // a hexagon is √3·r across its flat sides; the projection's scale is page units per radian
    acrossKm: (Math.sqrt(3) * HEX_RADIUS * EARTH_KM) / projection.scale(),
    land: countries.map((c: Feature<Geometry>) => land(c) ?? "").join(""),
    bins,
  };
}
