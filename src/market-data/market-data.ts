import type { Config } from '../config';
import { ConcurrencyGate } from '../db/concurrency-gate';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import type { Clock } from '../clock';
import type { MarketFeed } from './feed';
import { LivePriceService } from './live-price-service';
import { MarketService } from './market-service';
import { MarketStore } from './market-store';
import { MarketSync } from './market-sync';
import { PolymarketFeed } from './polymarket/polymarket-feed';
import { PriceChanges, type PriceService } from '../domain/trading/price-service';
import { SimulatedFeed } from './simulated/simulated-feed';
import { seasonSeal } from './simulated/venue-seal';
import { masterSecretOf } from './simulated/venue-secret-store';
import { PriceBroadcast } from './price-broadcast';
import { RecordingFeed } from './mirror-history/recording-feed';
import { MirrorHistoryStore } from './mirror-history/mirror-history-store';

/** The Polymarket feed recording what it mirrors (replays of source "mirror"), unless MIRROR_HISTORY_DAYS is 0. */
function recorded(config: Config, db: Database, clock: Clock, log: Logger, feed: PolymarketFeed): MarketFeed {
  return config.MIRROR_HISTORY_DAYS > 0 ? new RecordingFeed(feed, new MirrorHistoryStore(db), clock, log, config.MIRROR_HISTORY_DAYS) : feed;
}

export interface MarketData {
  feed: MarketFeed;
  prices: PriceService;
  markets: MarketService;
  marketSync: MarketSync;
  /** Every price change the service sees: the sync's writes and live quotes that moved (resting orders, in-process). */
  priceChanges: PriceChanges;
  /** Changed prices announced by the sync and by live quotes that moved, heard in every process (the price streams). */
  priceBroadcast: PriceBroadcast;
  readiness: () => Promise<Record<string, { status: string; ok: boolean }>>;
}

/** The feed chosen by MARKET_FEED, and everything built on it. `prices` replaces the live price service (tests). */
export function createMarketData(args: { config: Config; db: Database; log: Logger; clock: Clock; prices?: PriceService; feed?: MarketFeed }): MarketData {
  const { config, db, clock } = args;
  const log = args.log.child({ component: 'market-data' });
  const feed: MarketFeed =
    args.feed ??
    (config.MARKET_FEED === 'polymarket'
      ? recorded(
          config,
          db,
          clock,
          log,
          new PolymarketFeed({
            gammaUrl: config.POLYMARKET_GAMMA_URL,
            clobUrl: config.POLYMARKET_CLOB_URL,
            now: () => clock.now().getTime(),
            log,
            upstream: { timeoutMs: config.POLYMARKET_TIMEOUT_MS, retries: config.POLYMARKET_RETRIES },
          }),
        )
      : new SimulatedFeed(
          { seed: config.SIM_SEED, speed: config.SIM_SPEED, information: config.SIM_INFORMATION, seal: seasonSeal(masterSecretOf(config)) },
          clock,
        ));
  const priceBroadcast = new PriceBroadcast(db, log);
  const store = new MarketStore(db, log, config.PRICE_MAX_AGE_S, priceBroadcast);
  const priceChanges = new PriceChanges();
  const prices = args.prices ?? new LivePriceService(feed, db, clock, log, { maxAgeS: config.PRICE_MAX_AGE_S }, priceChanges, priceBroadcast);
  const markets = new MarketService({
    db,
    feed,
    store,
    prices,
    clock,
    log,
    syncIntervalS: config.MARKET_SYNC_INTERVAL_S,
    searchGate: new ConcurrencyGate(config.SEARCH_CONCURRENCY),
  });
  const marketSync = new MarketSync({ db, feed, store, log, clock, intervalS: config.MARKET_SYNC_INTERVAL_S, priceChanges });

  // Feed trouble is reported, not made fatal: every instance shares the same upstream, so taking one out
  // of rotation would not help, and accounts, portfolios and the mirror keep working meanwhile.
  const readiness = async () => {
    const s = feed.status();
    const last = marketSync.lastSuccessAt;
    const ageS = last ? Math.round((clock.now().getTime() - last.getTime()) / 1000) : null;
    const outcome = marketSync.lastOutcome;
    const sync =
      ageS !== null
        ? `${ageS <= 3 * config.MARKET_SYNC_INTERVAL_S ? 'ok' : 'stale'}: last sync by this process ${ageS} s ago`
        : outcome
          ? `${outcome.status === 'failed' ? 'failing' : 'waiting'}: ${outcome.status}`
          : 'not started';
    return {
      marketFeed: { status: `${feed.source} ${s.state}: ${s.detail}`, ok: true },
      marketSync: { status: sync, ok: true },
    };
  };
  return { feed, prices, markets, marketSync, priceChanges, priceBroadcast, readiness };
}
