import { requirePrincipal, type MethodContext } from '../registry/context';
import { aliased } from './aliases';
import type { InTransaction, Stated } from '../domain/forecasts/forecast-service';
import type { IntentForecast } from '../domain/trading/engine';
import { marketOfToken } from '../domain/community/community-trading-service';

/**
 * What place_order needs to carry a stated forecast: the caller, one instant for the order and its forecast, and the
 * step its domain runs before commit (the forecast when one is given, then the idempotent call's completion; without a
 * forecast, the completion alone). A trade's forecast is part of its intent instead (marketBuy, communityBuy).
 */
function tradeWithForecast(
  ctx: MethodContext,
  source: 'place_order',
  stated: Stated | undefined,
  marketOf: (result: unknown) => string | undefined,
  /** A mirrored order's token: the forecast is stamped with its market's live quote (ForecastService.quotedMid). */
  quotedToken?: string,
): { userId: string; now: Date; then: InTransaction | undefined } {
  const userId = requirePrincipal(ctx).userId;
  const now = ctx.clock.now();
  return { userId, now, then: ctx.services.forecasts.onTrade(userId, source, stated, marketOf, now, ctx.idempotency?.complete, quotedToken) };
}

/** place_order: the call's order (without its forecast and idempotency key) and tradeWithForecast's parts. */
export function binaryTrade<I extends { tokenId: string; probability?: number; forecast?: number; idempotencyKey?: string }>(
  ctx: MethodContext,
  source: 'place_order',
  input: I,
  marketOf: (result: unknown) => string | undefined,
): { order: Omit<I, 'probability' | 'forecast' | 'idempotencyKey'>; userId: string; now: Date; then: InTransaction | undefined } {
  const { idempotencyKey: _ignored, probability: given, forecast, ...order } = input;
  const probability = aliased('probability', given, 'forecast', forecast);
  return { order, ...tradeWithForecast(ctx, source, probability === undefined ? undefined : { probability }, marketOf, input.tokenId) };
}

/**
 * paper_trade: its market is known before it trades, so its forecast is part of the buy's intent (the engine records it
 * once the buy is written); `then` is the idempotent call's completion alone.
 */
export function marketBuy<I extends { marketId: string; tokenId: string; probability?: number; forecast?: number; idempotencyKey?: string }>(
  ctx: MethodContext,
  input: I,
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
    forecast: ctx.services.forecasts.forIntent(userId, 'paper_trade', stated, input.marketId, now, input.tokenId),
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
