// How lookups.providers and answer versions record the providers a mobile answer holds ratings for:
// ",ProvA,ProvB,". Each provider sits between commas, so a search for ",ProvA," finds exactly it.
// The one place that knows the format (the schema's migration that first filled the column aside).

/** The key of a provider list: [A, B] → ",A,B,". */
export function providerKey(providers: readonly string[]): string {
  return `,${providers.join(",")},`;
}

/** The providers of a key (",A,B," → [A, B]); none for a null key. */
export function providersOfKey(key: string | null): string[] {
  return key ? key.split(",").filter(Boolean) : [];
}

/** What a key holding `provider` contains (for SQL's instr): the provider between commas. */
export function providerNeedle(provider: string): string {
  return providerKey([provider]);
}
