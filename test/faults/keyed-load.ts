import type { Queryable } from '../../src/db/database';
import { auditLedger } from '../../src/domain/audit/ledger-audit';

/** One keyed buy as a client saw it: its answer, or none (the connection died). */
export interface Outcome {
  key: string;
  status: number | 'no answer';
  body?: { code?: string; quantity?: number; totalCost?: number; positionId?: string };
  ms: number;
}

export interface LoadAgent {
  id: string;
  apiKey: string;
}

export type Send = (agent: LoadAgent, key: string) => Promise<{ status: number; body: Outcome['body'] }>;

/**
 * Keyed buys of `amount` from each agent, one after another per agent and all agents at once, until stop()
 * is called. Every request carries its own Idempotency-Key; what each got back is kept, keyed by it.
 */
export function keyedLoad(agents: LoadAgent[], send: Send) {
  const outcomes = new Map<string, Outcome & { agent: LoadAgent }>();
  let running = true;
  let n = 0;
  const loops = agents.map(async (agent) => {
    while (running) {
      n += 1;
      const key = `load-${agent.id.slice(0, 8)}-${n}`;
      const started = Date.now();
      try {
        const res = await send(agent, key);
        outcomes.set(key, { key, agent, status: res.status, body: res.body, ms: Date.now() - started });
      } catch {
        outcomes.set(key, { key, agent, status: 'no answer', ms: Date.now() - started });
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    outcomes,
    /** Successful answers so far. */
    ok: () => [...outcomes.values()].filter((o) => o.status === 200).length,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * The books after a fault: the ledger audit is clean, and each agent's balance, trades and shares are
 * exactly what its successful answers say (each key counted once, however often it was answered).
 */
export async function expectBooksMatch(db: Queryable, agents: LoadAgent[], outcomes: Iterable<Outcome & { agent: LoadAgent }>, amount: number) {
  expect((await auditLedger(db)).violations).toEqual([]);
  const byAgent = new Map<string, Map<string, Outcome>>();
  for (const o of outcomes) {
    if (o.status !== 200) continue;
    const mine = byAgent.get(o.agent.id) ?? new Map<string, Outcome>();
    mine.set(o.key, o);
    byAgent.set(o.agent.id, mine);
  }
  for (const a of agents) {
    const ok = [...(byAgent.get(a.id)?.values() ?? [])];
    const [row] = await db.query<{ balance: bigint; trades: bigint; shares: bigint | null }>(
      `SELECT (SELECT balance_micro FROM cash_balances WHERE user_id = $1) AS balance, (SELECT count(*) FROM trades WHERE user_id = $1) AS trades,
              (SELECT sum(quantity_micro)::bigint FROM positions WHERE user_id = $1) AS shares`,
      [a.id],
    );
    const micro = (x: number) => BigInt(Math.round(x * 1e6));
    expect(Number(row!.trades)).toBe(ok.length);
    expect(row!.balance).toBe(micro(1000) - BigInt(ok.length) * micro(amount));
    expect(row!.shares ?? 0n).toBe(ok.reduce((sum, o) => sum + micro(o.body!.quantity!), 0n));
  }
}
