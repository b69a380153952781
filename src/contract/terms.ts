// What Ofcom's API terms of use ask of a tool that stores answers (the API's terms of use).

/** Clause 4.3.6: data cached for performance reasons "should be held for a period of no longer than one month". */
export const DEFAULT_RETENTION_DAYS = 30;

/** The source named beside any display of the API's data (4.2.1-4.2.2), unless --attribution gives the licence's own words. */
export const DEFAULT_ATTRIBUTION_SOURCE = "Ofcom";

/** The service's plans (the production service's plans and limits, stated for users in docs/api-notes.md): requests per product per period. The largest bounds what any key keeps answered. */
export const SERVICE_PLANS = [
  { name: "Basic", requests: 50_000, periodDays: 28 },
  { name: "Premium", requests: 150_000, periodDays: 28 },
] as const;
