// Map (issue 22): report.html's map section must stay about the same size whatever the list, since
// its hexagons have a fixed size on the page. Drawn from the simulator's coordinates
// (simulatedCoordinates: postcodes scattered around the real postcode areas' towns) for 2,000 and
// 200,000 postcodes, and, as the worst case, from 200,000 points spread evenly over Great Britain's
// box, which fills every hexagon of the page. Checks: 200,000 within 1.5× of 2,000 and every case
// under 1 MB; the layout time is recorded.
import { layoutMap, type MapPoint } from "../../src/report/html/map/layout.js";
import { mapSection } from "../../src/report/html/sections/map.js";
import { generatePostcodes, simulatedCoordinates } from "../../src/simulator/index.js";
import { atMost, below, check, type BenchContext, type Scenario } from "../lib/scenario.js";
import { round, thousands } from "../lib/stats.js";

const KB = 1024;
const GROWTH = 1.5;
const LIMIT_KB = 1024;

/**
 * A point with figures that vary, so that every share class appears. Written out field by field,
 * as SQLite's rows arrive: objects built by spreading are several times slower to read in V8.
 */
const point = (latitude: number, longitude: number, i: number): MapPoint => ({
  latitude,
  longitude,
  broadbandAddresses: 10 + (i % 30),
  belowSuperfast: i % 13,
  mobileAddresses: 10 + (i % 30),
  voiceNotspots: i % 7,
});

function simulated(n: number): MapPoint[] {
  return generatePostcodes(22, n).map((p, i) => {
    const at = simulatedCoordinates(p)!;
    return point(at.latitude, at.longitude, i);
  });
}

/** Evenly over 50°–58.7° N, 6.3° W–1.8° E, by a fixed low-discrepancy sequence. */
function even(n: number): MapPoint[] {
  return Array.from({ length: n }, (_, i) => point(50 + ((i * 0.618034) % 1) * 8.7, -6.3 + ((i * 0.754878) % 1) * 8.1, i));
}

function measure(points: MapPoint[]): { hexagons: number; kb: number; layoutSeconds: number } {
  const started = performance.now();
  const layout = layoutMap(points);
  const layoutSeconds = (performance.now() - started) / 1000;
  const html = mapSection({ located: points.length, missing: 0, layout }, { broadband: true, mobile: true }, "Where");
  return { hexagons: layout?.bins.length ?? 0, kb: round(Buffer.byteLength(html) / KB, 1), layoutSeconds: round(layoutSeconds, 2) };
}

export const map: Scenario = {
  name: "map",
  async run(ctx: BenchContext) {
    // the first layout reads Natural Earth's countries: not part of any size's time
    layoutMap(simulated(10));
    const cases = [
      { name: "2,000 simulated postcodes", points: simulated(2_000) },
      { name: "200,000 simulated postcodes", points: simulated(200_000) },
      { name: "200,000 points evenly over Great Britain", points: even(200_000) },
    ].map((c) => {
      const m = measure(c.points);
      ctx.log(`map: ${c.name}: ${thousands(m.hexagons)} hexagons, ${m.kb} KB, layout ${m.layoutSeconds} s`);
      return { name: c.name, ...m };
    });
    const [small, large, worst] = cases as [(typeof cases)[number], (typeof cases)[number], (typeof cases)[number]];
    const growth = large.kb / small.kb;
    return {
      setup: "report.html's map section (both maps) for the simulator's coordinates at 2,000 and 200,000 postcodes, and 200,000 points evenly over Great Britain",
      checks: [
        check("map bytes at 200,000 ÷ at 2,000 postcodes", growth, `${growth.toFixed(2)}× (${large.kb} KB vs ${small.kb} KB)`, atMost(GROWTH, `≤ ${GROWTH}×`)),
        check("map bytes, worst case (every hexagon drawn)", worst.kb, `${worst.kb} KB, ${thousands(worst.hexagons)} hexagons a map`, below(LIMIT_KB, `< ${LIMIT_KB} KB`)),
      ],
      figures: { cases },
      notes: [],
    };
  },
};
