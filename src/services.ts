import type { Config } from './config';
import type { Database } from './db/database';
import type { Logger } from './logger';
import type { Registry } from './registry/registry';
import type { MethodContext, Clock } from './registry/context';
import { AccountService } from './domain/accounts/account-service';
import { AccountDeletion } from './domain/accounts/account-deletion';
import { AccountSettings } from './domain/accounts/account-settings';
import type { Authenticator } from './auth/authenticator';
import { createIdentity, type Identity } from './auth/identity';
import type { PriceService } from './market-data/price-service';
import { createMarketData } from './market-data/market-data';
import type { MarketFeed } from './market-data/feed';
import type { MarketService } from './market-data/market-service';
import type { MarketSync } from './market-data/market-sync';
import { IdempotencyStore } from './domain/idempotency/idempotency-store';
import { TradeHooks } from './domain/trading/trade-hooks';
import { TradingService } from './domain/trading/trading-service';
import { TradeHistory } from './domain/trading/trade-history';
import { SettlementService } from './domain/trading/settlement-service';
import { createTrackRecord, type TrackRecord } from './domain/track-record';
import { CommunityMarketService } from './domain/community/community-market-service';
import { CommunityTradingService } from './domain/community/community-trading-service';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter';

/** Everything a handler can reach through ctx.services. Built once per process (or per test app). */
export interface Services {
  config: Config;
  db: Database;
  log: Logger;
  clock: Clock;
  registry: Registry;
  accounts: AccountService;
  /** delete_account: erases an account's personal data, keeps its books. */
  accountDeletion: AccountDeletion;
  /** update_profile and change_password. */
  accountSettings: AccountSettings;
  authenticator: Authenticator;
  limiter: RateLimiter;
  /** Access tokens, browser sessions and sign-in (src/auth/identity.ts). */
  identity: Identity;
  prices: PriceService;
  /** The venue chosen by MARKET_FEED (simulated or polymarket). */
  feed: MarketFeed;
  /** Market reads: search, odds, price history. */
  markets: MarketService;
  /** The mirror job; tests drive it with runOnce(). */
  marketSync: MarketSync;
  idempotency: IdempotencyStore;
  tradeHooks: TradeHooks;
  trading: TradingService;
  /** The caller's own fills (list_trades). */
  tradeHistory: TradeHistory;
  settlement: SettlementService;
  /** Leaderboards, stats and reputation, XP and badges, daily challenges, notifications. */
  trackRecord: TrackRecord;
  community: CommunityMarketService;
  /** The community markets' LMSR market makers: quotes, buys, sells, price history, settlement. */
  communityTrading: CommunityTradingService;
  /** Set by the sessions module: signs a person in after registration (isAgent false). */
  signInAfterRegistration?: (ctx: MethodContext, userId: string) => Promise<void>;
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
  const limiter = args.limiter ?? createRateLimiter(config, log);
  const identity = createIdentity({ db, config, clock, limiter });
  const accounts = new AccountService(db);
  const accountDeletion = new AccountDeletion(db);
  const accountSettings = new AccountSettings(db);
  const settlement = new SettlementService(db, tradeHooks, log);
  const communityTrading = new CommunityTradingService(db, tradeHooks, settlement);
  // A deleted account's key must fail at once, not when the authenticator's cache entry expires.
  accountDeletion.onDeleted((userId) => identity.authenticator.forgetKeysOf(userId));
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
    readiness: marketData.readiness,
    idempotency: new IdempotencyStore(db),
    tradeHooks,
    trading: new TradingService(db, prices, tradeHooks),
    tradeHistory: new TradeHistory(db),
    settlement,
    trackRecord: createTrackRecord({ db, tradeHooks, accounts, deletion: accountDeletion, settings: accountSettings }),
    community: new CommunityMarketService(db, communityTrading),
    communityTrading,
    stoppers: [],
  };
}
