// The one shape for counting final states of postcode × lookup pairs: what a run records, what
// its reports sum up and what the batch's closing line says.

export interface OutcomeCounts {
  ok: number;
  notFound: number;
  failed: number;
  /** no final answer yet: the run stopped early (quota, --max-requests, a signal, a kill) */
  pending: number;
  /** reports only: the answer expired (retention) and awaits a refresh */
  expired?: number;
}

export function zeroOutcomes(): OutcomeCounts {
  return { ok: 0, notFound: 0, failed: 0, pending: 0 };
}
