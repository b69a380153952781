// A database holds simulated answers (--simulate, npm run demo) or real ones, never both: the
// quota ledger, the plan and the reports of the one must not count the other's.

/** The one line that refuses a run against a store of the other kind. */
export function otherKindMessage(location: string, simulated: boolean): string {
  return simulated
    ? `${location} holds answers from the real API; a simulated run (--simulate) must not mix its made-up answers with them: give it another --db (npm run demo uses demo/coverage.sqlite)`
    : `${location} holds simulated answers (--simulate, npm run demo); a real run must not mix with them: give it another --db, or delete ${location} if those answers are no longer wanted`;
}
