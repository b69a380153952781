// One of several processes reserving from one ledger at once (test/store-contract/ledger-processes.test.ts):
// opens the store at argv[2], says "ready", waits for a line on standard input (so that all start
// together), then reserves one request at a time under lease argv[3] until the ledger grants none,
// and prints how many it was granted.
import { openStore } from "../../src/store/open-store.js";

const [location, leaseId, limit, nowMs] = process.argv.slice(2) as [string, string, string, string];
const store = await openStore(location);
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
let granted = 0;
for (;;) {
  const r = await store.ledger.reserve({ leaseId: Number(leaseId), lookup: "broadband", period: "2026-03-01", n: 1, limit: Number(limit), nowMs: Number(nowMs) });
  if (r.granted === 0) break;
  granted += r.granted;
}
await store.close();
process.stdout.write(`granted ${granted}\n`);
