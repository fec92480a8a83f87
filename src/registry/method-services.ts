import type { CommentService } from '../domain/comments/comment-service';
import type { Config } from '../config';
import type { Clock } from '../clock';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import type { RateLimiter } from '../limits/rate-limiter';
import type { Authenticator } from '../auth/authenticator';
import type { Identity, SignInAfterRegistration } from '../auth/identity';
import type { AccountService } from '../domain/accounts/account-service';
import type { AccountDeletion } from '../domain/accounts/account-deletion';
import type { AccountSettings } from '../domain/accounts/account-settings';
import type { IdempotencyStore } from '../domain/idempotency/idempotency-store';
import type { TradingService } from '../domain/trading/trading-service';
import type { OrderService } from '../domain/orders/order-service';
import type { ForecastService } from '../domain/forecasts/forecast-service';
import type { BenchmarkService } from '../domain/benchmark/benchmark-service';
import type { TradeHistory } from '../domain/trading/trade-history';
import type { PortfolioHistoryService } from '../domain/portfolio/portfolio-history';
import type { SettlementService } from '../domain/trading/settlement-service';
import type { TrackRecord } from '../domain/track-record';
import type { CommunityTradingService } from '../domain/community/community-trading-service';
import type { CommunityMarketService } from '../domain/community/community-market-service';
import type { MarketService } from '../market-data/market-service';
import type { EventLog } from '../domain/events/event-log';
import type { EventFeed } from '../domain/events/event-feed';
import type { WebhookService } from '../webhooks/webhook-service';
import type { TaskPushStore } from '../domain/task-push/task-push-store';
import type { PriceBroadcast } from '../market-data/price-broadcast';
import type { ReplayRuns } from '../domain/replay/replay-runs';
import type { CallInfo } from '../auth/caller';
import type { Watchlist } from '../domain/watchlist/watchlist';

/**
 * What a handler, the invoke pipeline and the transports reach through ctx.services: owned here, in terms of
 * the layers below the registry, so the registry never imports the composition root. src/services.ts builds
 * one (its Services extends this with what only the process needs: the feed, the sync job, stoppers).
 */
export interface MethodServices {
  config: Config;
  db: Database;
  log: Logger;
  clock: Clock;
  // `registry: Registry` is declared by src/registry/registry.ts (declaration merging): a method's type
  // names its context, so importing the registry's type here would loop back to this file.
  accounts: AccountService;
  /** delete_account: erases an account's personal data, keeps its books. */
  accountDeletion: AccountDeletion;
  /** update_profile and change_password. */
  accountSettings: AccountSettings;
  authenticator: Authenticator;
  limiter: RateLimiter;
  /** Access tokens, browser sessions and sign-in (src/auth/identity.ts). */
  identity: Identity;
  /** Market reads: search, odds, price history. */
  markets: MarketService;
  idempotency: IdempotencyStore;
  trading: TradingService;
  /** Limit orders and their reservations (place_order, cancel_order, get_order, list_orders). */
  orders: OrderService;
  /** Stated forecasts, hash-chained per account (submit_forecast, list_forecasts, and the forecast a trade carries). */
  forecasts: ForecastService;
  /** Market discussion: comments, their hiding by a community market's creator, rationales once a market closes. */
  comments: CommentService;
  /** The forecasting benchmark's reads: records and season boards (get_benchmark_record, get_benchmark_leaderboard, the export). */
  benchmark: BenchmarkService;
  /** The caller's own fills (list_trades). */
  tradeHistory: TradeHistory;
  /** Hourly account snapshots and the equity curve (get_portfolio_history). */
  portfolioHistory: PortfolioHistoryService;
  settlement: SettlementService;
  /** Leaderboards, stats and reputation, XP and badges, daily challenges, notifications. */
  trackRecord: TrackRecord;
  community: CommunityMarketService;
  /** The community markets' LMSR market makers: quotes, buys, sells, price history, settlement. */
  communityTrading: CommunityTradingService;
  /** Every account's ordered event log (orders, trades, settlements, notifications, balance). */
  events: EventLog;
  /** Wakes subscribers (SSE, webhooks, A2A tasks) when an account's events commit, in any process. */
  eventFeed: EventFeed;
  /** The account's webhook endpoints, their deliveries and replays (create_webhook and the rest). */
  webhooks: WebhookService;
  /** What A2A keeps beside an order seen as a task: its contextId, its push notification targets and their cursor. */
  taskPush: TaskPushStore;
  /** The markets an account watches and their price alerts (watch_market, unwatch_market, list_watchlist). */
  watchlist: Watchlist;
  /** Changed prices announced by the market sync, from whichever process ran it (GET /api/markets/stream). */
  priceBroadcast: PriceBroadcast;
  /** Set by the sessions module: signs a person in after registration (isAgent false). */
  signInAfterRegistration?: SignInAfterRegistration;
  /** Replay runs (start_replay and the rest); set by the composition root (src/start.ts), also on each run's services. */
  replay?: ReplayRuns;
  /** Finds the replay run a call's key belongs to (live services only): the call then runs on that run's services. */
  runs?: RunScopes;
}

/** A call made with a replay run's key, as the run serves it: the run's services and clock, and the call as the run sees it. */
export interface RunScope {
  runId: string;
  services: MethodServices;
  clock: Clock;
  /** The call with the run key replaced by the key of the run's own account (which the run's authenticator knows). */
  call: CallInfo;
  /** The run has ended: it only reads. */
  ended: boolean;
}

export interface RunScopes {
  /** The run of a call's bearer key; null for any other call; UNAUTHORIZED for a run key that names no run. */
  scopeOf(call: CallInfo): Promise<RunScope | null>;
}
