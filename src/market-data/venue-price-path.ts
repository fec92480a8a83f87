import type { PricePath } from '../domain/benchmark/benchmark-inputs';
import type { MarketFeed } from './feed';

/**
 * The venue's own price path as the benchmark's timing scores read it (issue 49 item 3): a token's price at an instant,
 * asked of the venue itself, so a buy's +1 h, +24 h and close prices do not depend on when the mirror synced — in a
 * replay, on how the agent stepped its clock. Only the simulated venue answers (its path is a pure function of time, no
 * call leaves the process); the live Polymarket mirror is synced on the service's own schedule, whatever any agent
 * does, so its snapshots serve (undefined here). A token the venue does not know leaves the snapshots' figure too.
 */
export function venuePricePath(feed: MarketFeed): PricePath | undefined {
  if (feed.source !== 'simulated') return undefined;
  return async (tokenId, atMs) => {
    const s = Math.floor(atMs / 1000);
    try {
      const points = await feed.history(tokenId, { interval: 'point', fromS: s, toS: s, stepS: 1 });
      const at = points.find((x) => x.t === s);
      return at ? at.p : null;
    } catch {
      return undefined;
    }
  };
}
