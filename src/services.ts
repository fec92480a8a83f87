import type { Config } from './config';
import type { Database } from './db/database';
import type { Logger } from './logger';
import type { Registry } from './registry/registry';
import type { Clock } from './clock';
import type { MethodServices } from './registry/method-services';
import { AccountService } from './domain/accounts/account-service';
import { AccountDeletion } from './domain/accounts/account-deletion';
import { AccountSettings } from './domain/accounts/account-settings';
import { createIdentity } from './auth/identity';
import type { PriceService } from './domain/trading/price-service';
import { createMarketData } from './market-data/market-data';
import type { MarketFeed } from './market-data/feed';
import type { MarketSync } from './market-data/market-sync';
import { IdempotencyStore } from './domain/idempotency/idempotency-store';
import { TradeHooks } from './domain/trading/trade-hooks';
import { TradingService } from './domain/trading/trading-service';
import { OrderService } from './domain/orders/order-service';
import { TradeHistory } from './domain/trading/trade-history';
import { PortfolioHistoryService } from './domain/portfolio/portfolio-history';
import { SettlementService } from './domain/trading/settlement-service';
import { createTrackRecord } from './domain/track-record';
import { CommunityMarketService } from './domain/community/community-market-service';
import { CommunityTradingService } from './domain/community/community-trading-service';
import { EventLog } from './domain/events/event-log';
import { EventFeed } from './domain/events/event-feed';
import { recordTradeEvents } from './domain/events/trade-events';
import { createRateLimiter, type RateLimiter } from './limits/rate-limiter';

/** Everything the process holds, built once per process (or per test app): what a handler reaches through
 * ctx.services (MethodServices, owned by the registry) and what only the process needs (the feed, the sync job). */
export interface Services extends MethodServices {
  prices: PriceService;
  /** The venue chosen by MARKET_FEED (simulated or polymarket). */
  feed: MarketFeed;
  /** The mirror job; tests drive it with runOnce(). */
  marketSync: MarketSync;
  tradeHooks: TradeHooks;
  /** Extra readiness checks (market feed status) for GET /ready. */
  readiness?: () => Promise<Record<string, { status: string; ok: boolean }>>;
  /** Background work to stop on shutdown (sync jobs, timers). */
  stoppers: Array<() => Promise<void> | void>;
}

export function createServices(args: {
  config: Config;
  db: Database;
  log: Logger;
  clock: Clock;
  registry: Registry;
  limiter?: RateLimiter;
  prices?: PriceService;
}): Services {
  const { config, db, log, clock, registry } = args;
  const marketData = createMarketData({ config, db, log, clock, prices: args.prices });
  const prices = marketData.prices;
  const tradeHooks = new TradeHooks();
  // First of the trade listeners: an account's log shows the trade (and its balance) before what it earned.
  recordTradeEvents(tradeHooks);
  const limiter = args.limiter ?? createRateLimiter(config, log);
  const identity = createIdentity({ db, clock, limiter });
  const accounts = new AccountService(db);
  const accountDeletion = new AccountDeletion(db);
  const accountSettings = new AccountSettings(db);
  const settlement = new SettlementService(db, tradeHooks, log);
  const communityTrading = new CommunityTradingService(db, tradeHooks, settlement);
  const trading = new TradingService(db, prices, tradeHooks);
  // A deleted account's key must fail at once, not when the authenticator's cache entry expires.
  accountDeletion.onDeleted((userId) => identity.authenticator.forgetKeysOf(userId));
  const orders = new OrderService(db, prices, trading, tradeHooks, log, config.PRICE_MAX_AGE_S);
  // A deleted account's resting orders are cancelled once the deletion commits (each in its own transaction, as a
  // cancel is; not inside the deletion, which holds the account row that a fill takes after the order row).
  accountDeletion.onDeleted((userId) => {
    orders
      .cancelAllOf(userId, 'account deleted', clock.now())
      .catch((err) => log.error("cancelling a deleted account's orders failed", { error: String(err) }));
  });
  return {
    config,
    db,
    log,
    clock,
    registry,
    accounts,
    accountDeletion,
    accountSettings,
    authenticator: identity.authenticator,
    limiter,
    identity,
    signInAfterRegistration: identity.signInAfterRegistration,
    prices,
    feed: marketData.feed,
    markets: marketData.markets,
    marketSync: marketData.marketSync,
    priceChanges: marketData.priceChanges,
    readiness: marketData.readiness,
    idempotency: new IdempotencyStore(db),
    tradeHooks,
    trading,
    orders,
    tradeHistory: new TradeHistory(db),
    portfolioHistory: new PortfolioHistoryService(db),
    settlement,
    trackRecord: createTrackRecord({ db, tradeHooks, accounts, deletion: accountDeletion, settings: accountSettings }),
    community: new CommunityMarketService(db, communityTrading),
    events: new EventLog(db),
    eventFeed: new EventFeed(log),
    communityTrading,
    stoppers: [],
  };
}
