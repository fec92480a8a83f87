import type { PoolClient } from 'pg';
import type { Announcer } from '../../src/db/announcer';
import { rawTransaction } from './raw-transaction';
import { mirroredOpen, TradeEngine, venueOf, type IntentForecast, type Pricer } from '../../src/domain/trading/engine';
import { VENUE } from '../../src/domain/ledger/accounts';
import type { Micro } from '../../src/domain/money/micro';
import { TradeHooks } from '../../src/domain/trading/trade-hooks';
import { trackTrade } from '../../src/domain/track-record/track-listener';
import { appendTradeEvents } from '../../src/domain/events/trade-events';
import { recordParams, recordSql } from '../../src/domain/forecasts/forecast-chain';
import { payloadAround, type ForecastFacts } from '../../src/domain/forecasts/forecast-rules';

type Pending = (userId: string, seq: number) => void;
const unheard: Pending = () => {};

/** Which of paper_trade's trade listeners (src/services.ts) a raw buy does the work of, besides the engine's own writes. */
export interface RawBuyListeners {
  /** The track record (track-listener.ts): its update of the account row, then what its answer calls for. */
  track: boolean;
  /**
   * The trade's account events (src/domain/events/trade-events.ts, the service's own statement and name): the `trade`
   * and `balance` rows, the account's event_seq, and the NOTIFY that wakes every process listening.
   */
  events: boolean;
  /**
   * Where the transaction's notifications go after its commit (poolAnnouncer: the bench pool's, as the service's
   * process has one): the trade's events, and the track record's own (a badge's notification) even without them.
   */
  announcer: Announcer;
}

/** One engine per listener set and board-folder hook, as the service makes one when it starts. */
const engines = new Map<string, WeakMap<Pending, TradeEngine>>();
function engineFor(listeners: RawBuyListeners, pending: Pending): TradeEngine {
  const key = `${listeners.track}:${listeners.events}`;
  const byPending = engines.get(key) ?? engines.set(key, new WeakMap()).get(key)!;
  let engine = byPending.get(pending);
  if (!engine) {
    const hooks = new TradeHooks();
    if (listeners.events) hooks.on((tx, e) => appendTradeEvents(tx, e));
    if (listeners.track) hooks.on((tx, e) => trackTrade(tx, e, pending));
    engine = new TradeEngine(hooks);
    byPending.set(pending, engine);
  }
  return engine;
}

/** A stated forecast for a raw buy's intent, recorded by the forecast chain's own statement (as ForecastService.forIntent's). */
export function rawForecast(facts: ForecastFacts): IntentForecast {
  return { record: async (tx) => void (await tx.query(recordSql(facts.venue), recordParams(facts, payloadAround(facts)), `forecast_record_${facts.venue}`)) };
}

/** A mirrored buy the bench has priced itself (its own fill of the ask): what it spends, the shares and their price. */
export interface RawBuy {
  userId: string;
  marketId: string;
  tokenId: string;
  outcome: 'YES' | 'NO';
  amountMicro: Micro;
  quantityMicro: Micro;
  priceMicro: Micro;
  forecast?: IntentForecast;
  at: Date;
}

/** The bench's fill as the engine's pricer: the mirrored venue, answering the buy as the bench priced it. */
function fixedPricer(buy: RawBuy): Pricer {
  return {
    account: VENUE,
    buy: () => ({ amountMicro: buy.amountMicro, quantityMicro: buy.quantityMicro, priceMicro: buy.priceMicro }),
    check: mirroredOpen,
    sell: () => {
      throw new Error('a raw buy sells nothing');
    },
  };
}

/**
 * One buy transaction straight through `pg` (rawTransaction): the trade engine's execute() of a buy intent against the
 * bench's own fill (src/domain/trading/engine.ts) with the listeners asked for — or ROLLBACK for a refused buy. No
 * HTTP, no registry, no price service: the benches' baseline for a trade. The client must be pipelined (benchPool). `pending` hears the traders whose board rows the
 * board folder is to bring up to date.
 */
export async function rawBuy(client: PoolClient, buy: RawBuy, listeners: RawBuyListeners, pending: Pending = unheard): Promise<{ positionId: string | null }> {
  const intent = {
    userId: buy.userId,
    marketId: buy.marketId,
    tokenId: buy.tokenId,
    outcome: buy.outcome,
    side: 'BUY' as const,
    size: { by: 'amount' as const, micro: buy.amountMicro },
    ...(buy.forecast ? { forecast: buy.forecast } : {}),
    at: buy.at,
  };
  try {
    const bought = await rawTransaction(client, listeners.announcer, (tx) =>
      engineFor(listeners, pending).execute(tx, intent, venueOf('mirrored', fixedPricer(buy))),
    );
    return { positionId: bought.positionId };
  } catch (err) {
    if ((err as { code?: string }).code === 'INSUFFICIENT_BALANCE') return { positionId: null };
    throw err;
  }
}
