import { readInputs, withOthers } from '../../../src/domain/benchmark/benchmark-inputs';
import { backends, type Backend } from '../../support/backends';
import { startTestApp, type TestApp } from '../../support/app';
import { ManualClock } from '../../support/identity';
import { ControlledPrices, moveQuote, seedMarket } from '../../support/markets';
import { agentTrader } from '../../support/traders';

/**
 * Everyone else's forecasts leave the database as one JSON text and are built where the record is scored (issue 52 item
 * 1): they must be what the driver's rows gave, instants finer than a millisecond included.
 */
function suite(backend: Backend) {
  let t: TestApp;
  const prices = new ControlledPrices();
  const clock = new ManualClock(Date.parse('2030-05-10T10:00:00Z'));

  beforeAll(async () => {
    t = await startTestApp(backend, { clock, prices, background: false });
  });
  afterAll(() => t.close());

  test('when others forecast the account’s market at instants finer than a millisecond, then the inputs hold them as the driver reads them, in order', async () => {
    const db = t.services.db;
    const m = await seedMarket(db);
    await moveQuote(db, prices, m.yes, 0.4, 0.4);
    await db.query(`UPDATE markets SET end_date = '2030-05-12T00:00:00Z' WHERE id = $1`, [m.id]);
    const who = await agentTrader(t);
    const late = await agentTrader(t);
    const early = await agentTrader(t);
    for (const [trader, probability] of [
      [who, 0.7],
      [late, 0.2],
      [early, 0.65],
    ] as const)
      expect((await t.api.post('/api/forecasts').set(trader.headers).send({ marketId: m.id, probability })).status).toBe(200);
    // Stated in the same second: `late` at .999999 (the driver keeps .999), `early` at .000500 (it keeps .000).
    await db.query(`UPDATE forecasts SET created_at = '2030-05-10T10:00:00.999999Z' WHERE user_id = $1`, [late.id]);
    await db.query(`UPDATE forecasts SET created_at = '2030-05-10T10:00:00.000500Z' WHERE user_id = $1`, [early.id]);
    await db.query(`UPDATE markets SET status = 'resolved', winner = 'YES', resolved_at = '2030-05-12T01:00:00Z' WHERE id = $1`, [m.id]);

    const { inputs, othersJson } = await readInputs(db, who.id, 'all', false);
    expect(inputs.contexts[m.id]?.others ?? []).toEqual([]);
    const others = withOthers(inputs, othersJson).contexts[m.id]!.others;
    expect(others).toEqual([
      { forecaster: early.id, reference: null, t: Date.parse('2030-05-10T10:00:00.000Z'), probabilities: [0.65] },
      { forecaster: late.id, reference: null, t: Date.parse('2030-05-10T10:00:00.999Z'), probabilities: [0.2] },
    ]);
    const rows = await db.query<{ created_at: Date }>(`SELECT created_at FROM forecasts WHERE market_id = $1 AND user_id <> $2 ORDER BY created_at`, [
      m.id,
      who.id,
    ]);
    expect(others.map((o) => o.t)).toEqual(rows.map((r) => new Date(r.created_at).getTime()));
  });
}

describe.each(backends())('others’ forecasts in the inputs on $name', suite);
