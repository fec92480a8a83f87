import { Accounts1700000000001 } from './1700000000001-accounts';
import { Markets1700000000002 } from './1700000000002-markets';
import { MarketSearch1700000000003 } from './1700000000003-market-search';
import { Trading1700000000004 } from './1700000000004-trading';
import { Identity1700000000005 } from './1700000000005-identity';
import { TrackRecord1700000000006 } from './1700000000006-track-record';
import { CommunityMarkets1700000000007 } from './1700000000007-community-markets';
import { SearchTerms1700000000008 } from './1700000000008-search-terms';
import { XpOnTrackRecord1700000000009 } from './1700000000009-xp-on-track-record';
import { MarketListing1700000000010 } from './1700000000010-market-listing';
import { TradeHistory1700000000011 } from './1700000000011-trade-history';
import { IdempotencyLeases1700000000012 } from './1700000000012-idempotency-leases';
import { AccountDeletion1700000000013 } from './1700000000013-account-deletion';
import { CommunityPools1700000000014 } from './1700000000014-community-pools';
import { PortfolioSnapshots1700000000016 } from './1700000000016-portfolio-snapshots';
import { Orders1700000000017 } from './1700000000017-orders';
import { AccountEvents1700000000018 } from './1700000000018-account-events';
import { Webhooks1700000000019 } from './1700000000019-webhooks';
import { A2aTasks1700000000020 } from './1700000000020-a2a-tasks';
import { BookDepth1700000000021 } from './1700000000021-book-depth';
import { BookConsumed1700000000024 } from './1700000000024-book-consumed';
import { BoardFolding1700000000025 } from './1700000000025-board-folding';
import { TrackOnAccount1700000000026 } from './1700000000026-track-on-account';
import { BadgesOnAccount1700000000027 } from './1700000000027-badges-on-account';
import { ReservationsWithinHoldings1700000000028 } from './1700000000028-reservations-within-holdings';
import { CommunityVoidReason1700000000029 } from './1700000000029-community-void-reason';
import { Forecasts1700000000030 } from './1700000000030-forecasts';
import { Benchmark1700000000031 } from './1700000000031-benchmark';
import { IdempotentReplayText1700000000032 } from './1700000000032-idempotent-replay-text';
import { ReplayRuns1700000000033 } from './1700000000033-replay-runs';
import { Comments1700000000040 } from './1700000000040-comments';
import { Watchlist1700000000041 } from './1700000000041-watchlist';
import { MirrorHistory1700000000042 } from './1700000000042-mirror-history';
import { ForecastChainHead1700000000043 } from './1700000000043-forecast-chain-head';
import { MarketStats1700000000044 } from './1700000000044-market-stats';
import { OrderSizedBy1700000000045 } from './1700000000045-order-sized-by';
import { LeanForecasts1700000000046 } from './1700000000046-lean-forecasts';
import { BenchmarkChanges1700000000047 } from './1700000000047-benchmark-changes';
import { Transfers1700000000048 } from './1700000000048-transfers';
import { VenueSecret1700000000050 } from './1700000000050-venue-secret';
import { SuiteResults1700000000052 } from './1700000000052-suite-results';
import { BookConsumption1700000000054 } from './1700000000054-book-consumption';
import { ScoringV11700000000072 } from './1700000000072-scoring-v1';
import { OrderHoldsInLedger1700000000073 } from './1700000000073-order-holds-in-ledger';
import { JournalRetired1700000000074 } from './1700000000074-journal-retired';
import { PoolBalances1700000000075 } from './1700000000075-pool-balances';
import { RowsOfTheirOwn1700000000077 } from './1700000000077-rows-of-their-own';
import { TrackRulesInCode1700000000078 } from './1700000000078-track-rules-in-code';
import { CashBalances1700000000079 } from './1700000000079-cash-balances';
import { TrackFigures1700000000080 } from './1700000000080-track-figures';
import { ThickMarkets1700000000081 } from './1700000000081-thick-markets';

/** Every migration, in order. A new one is appended here (no glob: the same list runs from ts and dist). */
export const MIGRATIONS = [
  Accounts1700000000001,
  Markets1700000000002,
  MarketSearch1700000000003,
  Trading1700000000004,
  Identity1700000000005,
  TrackRecord1700000000006,
  CommunityMarkets1700000000007,
  SearchTerms1700000000008,
  XpOnTrackRecord1700000000009,
  MarketListing1700000000010,
  TradeHistory1700000000011,
  IdempotencyLeases1700000000012,
  AccountDeletion1700000000013,
  CommunityPools1700000000014,
  PortfolioSnapshots1700000000016,
  Orders1700000000017,
  AccountEvents1700000000018,
  Webhooks1700000000019,
  A2aTasks1700000000020,
  BookDepth1700000000021,
  BookConsumed1700000000024,
  BoardFolding1700000000025,
  TrackOnAccount1700000000026,
  BadgesOnAccount1700000000027,
  ReservationsWithinHoldings1700000000028,
  CommunityVoidReason1700000000029,
  Forecasts1700000000030,
  Benchmark1700000000031,
  IdempotentReplayText1700000000032,
  ReplayRuns1700000000033,
  Comments1700000000040,
  Watchlist1700000000041,
  MirrorHistory1700000000042,
  ForecastChainHead1700000000043,
  MarketStats1700000000044,
  OrderSizedBy1700000000045,
  LeanForecasts1700000000046,
  BenchmarkChanges1700000000047,
  Transfers1700000000048,
  VenueSecret1700000000050,
  SuiteResults1700000000052,
  BookConsumption1700000000054,
  ScoringV11700000000072,
  OrderHoldsInLedger1700000000073,
  JournalRetired1700000000074,
  PoolBalances1700000000075,
  RowsOfTheirOwn1700000000077,
  TrackRulesInCode1700000000078,
  CashBalances1700000000079,
  TrackFigures1700000000080,
  ThickMarkets1700000000081,
];
