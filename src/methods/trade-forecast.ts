import { requirePrincipal, type MethodContext } from '../registry/context';
import { aliased } from './aliases';
import type { InTransaction, Stated } from '../domain/forecasts/forecast-service';
import type { IntentForecast } from '../domain/trading/engine';

/**
 * What a community buy needs to carry a stated forecast (buy_community_shares): the caller, one instant for the trade
 * and its forecast, and the step its domain runs before commit (the forecast when one is given, then the idempotent
 * call's completion; without a forecast, the completion alone).
 */
export function tradeWithForecast(
  ctx: MethodContext,
  source: 'buy_community_shares',
  stated: Stated | undefined,
  marketOf: (result: unknown) => string | undefined,
): { userId: string; now: Date; then: InTransaction | undefined } {
  const userId = requirePrincipal(ctx).userId;
  const now = ctx.clock.now();
  return { userId, now, then: ctx.services.forecasts.onTrade(userId, source, stated, marketOf, now, ctx.idempotency?.complete) };
}

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
