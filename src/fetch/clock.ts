// Time as a dependency, so tests never wait out a real backoff.
export interface Clock {
  now(): number;
  /** resolves after ms, or early (without error) when the signal aborts */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * The clock replays a time of its own (a month of nights in a test, a re-run of a past date): it
   * is the run's time, and the database server's does not replace it.
   */
  readonly replayed?: boolean;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (ms <= 0 || signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
    }),
};
