// A store part whose failures name the store: every function's error (thrown, or the rejection of
// the Promise it returns) goes through the engine's `convert`, which throws the one-line error a
// user reads; what a function resolves to with functions of its own (a writer) is wrapped the same way.
export function namingFailures<T extends object>(part: T, convert: (err: unknown) => never): T {
  const wrapValue = (value: unknown): unknown =>
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.values(value).some((v) => typeof v === "function")
      ? namingFailures(value, convert)
      : value;
  return Object.fromEntries(
    Object.entries(part).map(([name, member]) => [
      name,
      typeof member !== "function"
        ? member
        : (...args: unknown[]) => {
            let result: unknown;
            try {
              result = (member as (...a: unknown[]) => unknown).apply(part, args);
            } catch (err) {
              return convert(err);
            }
            return result instanceof Promise ? result.then(wrapValue, convert) : result;
          },
    ]),
  ) as T;
}
