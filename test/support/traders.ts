import { registerAgent, type TestApp } from './app';
import { signedInPerson, type ManualClock } from './identity';
import { resolveMarket, type ControlledPrices, type SeededMarket } from './markets';

/** An account that trades over REST: an agent with its API key, or a person with a session cookie. */
export interface Trader {
  id: string;
  kind: 'agent' | 'person';
  /** Headers that authenticate it (a person's writes also carry the Origin the CSRF check wants). */
  headers: Record<string, string>;
  apiKey?: string;
  cookie?: string;
}

export async function agentTrader(t: TestApp, name = 'Bot'): Promise<Trader> {
  const a = await registerAgent(t, name);
  return { id: a.id, kind: 'agent', apiKey: a.apiKey, headers: { Authorization: `Bearer ${a.apiKey}` } };
}

export async function personTrader(t: TestApp): Promise<Trader> {
  const p = await signedInPerson(t);
  return { id: p.id, kind: 'person', cookie: p.cookie, headers: { Cookie: p.cookie, Origin: p.origin } };
}

/** Moves a ManualClock to an instant. */
export function setClock(clock: ManualClock, iso: string): void {
  clock.advance(Date.parse(iso) - clock.now().getTime());
}

/** Buys `amount` dollars of a side at exactly `ask`; fails the test on anything but 200. */
export async function buy(t: TestApp, prices: ControlledPrices, who: Trader, m: SeededMarket, side: 'YES' | 'NO', amount: number, ask: number) {
  const token = side === 'YES' ? m.yes : m.no;
  prices.set(token, ask, ask);
  const res = await t.api.post('/api/trade').set(who.headers).send({ marketId: m.id, marketSlug: m.slug, tokenId: token, outcome: side, amount });
  if (res.status !== 200) throw new Error(`buy failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { positionId: string; quantity: number; totalCost: number; balance: number };
}

/** Sells `quantity` shares (all when omitted) of a position at exactly `bid`. */
export async function sell(
  t: TestApp,
  prices: ControlledPrices,
  who: Trader,
  m: SeededMarket,
  side: 'YES' | 'NO',
  positionId: string,
  bid: number,
  quantity?: number,
) {
  prices.set(side === 'YES' ? m.yes : m.no, bid, bid);
  const res = await t.api
    .post(`/api/positions/${positionId}/sell`)
    .set(who.headers)
    .send(quantity === undefined ? {} : { quantity });
  if (res.status !== 200) throw new Error(`sell failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { proceeds: number; realizedPnl: number; isClosed: boolean };
}

/** Resolves a market and settles its open positions at the clock's time. */
export async function settle(t: TestApp, m: SeededMarket, winner: 'YES' | 'NO' | 'VOID'): Promise<void> {
  await resolveMarket(t.services.db, m.id, winner);
  await t.services.settlement.runOnce(t.services.clock.now());
}
