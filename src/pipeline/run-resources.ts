// What a run has opened so far (the store and its lease, the lease's keeper, signal handlers, the
// API), each with what closes it. Whatever ends the run (its end, a failure, a lost lease, a
// signal) closes exactly what was opened by then, last opened first.
export class RunResources {
  private readonly opened: (() => void | Promise<void>)[] = [];

  /** `close` undoes what was just opened. */
  add(close: () => void | Promise<void>): void {
    this.opened.push(close);
  }

  /** Closes everything, last opened first; a close that fails goes to `onError` and the rest still run. */
  async closeAll(onError: (err: unknown) => void): Promise<void> {
    for (const close of this.opened.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        onError(err);
      }
    }
  }
}
