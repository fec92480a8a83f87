/**
 * A listener started only once someone needs it (a replay run's event feed and price broadcast: a listening session
 * for every run loaded, streamed or not, would cost a connection each). One start at a time; cancel() forgets it.
 */
export class OnDemandStart {
  private begin: (() => Promise<void>) | undefined;
  private starting: Promise<void> | undefined;

  /** What ready() starts. */
  set(begin: () => Promise<void>): void {
    this.begin = begin;
  }

  /** Resolves once started: at once when `started` (or nothing is to start), else after the one start under way. */
  async ready(started: boolean): Promise<void> {
    const begin = this.begin;
    if (started || !begin) return;
    this.starting ??= begin().finally(() => {
      this.starting = undefined;
    });
    await this.starting;
  }

  /** Nothing more starts; a start under way is let finish (the caller then stops what it started). */
  async cancel(): Promise<void> {
    this.begin = undefined;
    await this.starting?.catch(() => {});
  }
}
