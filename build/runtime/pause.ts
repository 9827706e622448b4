/**
 * A wait that something can cut short: dev waits after publishing a save for its readers to be
 * answered, and a new save (or a stop) ends the wait, so it never holds up the next build.
 */
export class Pause {
  #end: (() => void) | undefined;

  /** Resolves after `ms`, or at the next `end()`, whichever comes first. */
  for(ms: number): Promise<void> {
    this.end();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(), ms);
      this.#end = () => {
        clearTimeout(timer);
        this.#end = undefined;
        resolve();
      };
    });
  }

  /** Ends the wait under way, if any. */
  end(): void {
    this.#end?.();
  }
}
