// --max-requests: a cap on requests sent in this run, shared by both lookups.
export class RequestBudget {
  private used = 0;
  constructor(readonly limit: number | null) {}

  /** Takes one request from the budget; false when it is spent. */
  take(): boolean {
    if (this.limit !== null && this.used >= this.limit) return false;
    this.used++;
    return true;
  }
}
