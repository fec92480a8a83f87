import { requirePrincipal, type MethodContext } from '../registry/context';
import { aliased } from './aliases';
import type { InTransaction, Stated } from '../domain/forecasts/forecast-service';
import type { IntentForecast } from '../domain/trading/engine';
import { marketOfToken } from '../domain/community/community-trading-service';

/**
 * A mirrored trade's intent (paper_trade, place_order): the call's order (without its forecast and idempotency key),
 * and its stated forecast as the intent's — checked now, stamped with the market's quote, recorded by the engine with
 * the trade (or by the order service with a resting order; a refused trade or rejected order records none). `marketId`:
 * the market when the call names it (paper_trade), else null (an order names its token). `then` is the idempotent
 * call's completion alone.
 */
export function tradeIntent<I extends { tokenId: string; probability?: number; forecast?: number; idempotencyKey?: string }>(
  ctx: MethodContext,
  source: 'paper_trade' | 'place_order',
  input: I,
  marketId: string | null,
): {
  order: Omit<I, 'probability' | 'forecast' | 'idempotencyKey'>;
  userId: string;
  now: Date;
  then: InTransaction | undefined;
  forecast: Promise<IntentForecast | undefined>;
} {
  const { idempotencyKey: _ignored, probability: given, forecast, ...order } = input;
  const probability = aliased('probability', given, 'forecast', forecast);
  const userId = requirePrincipal(ctx).userId;
  const now = ctx.clock.now();
  const stated = probability === undefined ? undefined : { probability };
  return {
    order,
    userId,
    now,
    then: ctx.idempotency?.complete,
    forecast: ctx.services.forecasts.forIntent(userId, source, stated, marketId, now, input.tokenId),
  };
}

/**
 * A community market's buy (buy_community_shares, or paper_trade of a community token): its market is known from the
 * token before it trades, so its forecast is part of the buy's intent, as paper_trade's is; `then` is the idempotent
 * call's completion alone. A token that is no community outcome carries no forecast (the buy answers NOT_FOUND).
 */
export function communityBuy(
  ctx: MethodContext,
  source: 'paper_trade' | 'buy_community_shares',
  tokenId: string,
  stated: Stated | undefined,
): { userId: string; now: Date; then: InTransaction | undefined; forecast: Promise<IntentForecast | undefined> } {
  const userId = requirePrincipal(ctx).userId;
  const now = ctx.clock.now();
  const marketId = marketOfToken(tokenId);
  return {
    userId,
    now,
    then: ctx.idempotency?.complete,
    forecast:
      marketId === undefined ? Promise.resolve(undefined) : ctx.services.forecasts.forIntent(userId, source, stated, marketId, now, tokenId, 'community'),
  };
}
