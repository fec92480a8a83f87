import { Client, type Pool } from 'pg';
import { ACCOUNT_EVENTS_CHANNEL } from '../../src/domain/events/account-events';

/** What one buy left behind for its account: rows added to each table that has a `user_id`, the account's event_seq, its announcements. */
export type BuyWrites = Record<string, number>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** How long an announcement has to arrive after its commit. */
const ANNOUNCED_WITHIN_MS = 300;

/**
 * Runs `buy` (one buy by `userId`, committed when it resolves) and says what it wrote for that account, so that a
 * bench can check that its raw baseline writes what the service's buy does (BENCHMARKS.md: the same durable work).
 * Counted, not inferred: the tables are read from the catalogue, so a table the trade path starts writing shows up.
 * Rows a buy updates in place (the account row, an existing position) do not change a count; the account's event_seq
 * stands for the event write's update of it.
 */
export async function buyWrites(pool: Pool, url: string, userId: string, buy: () => Promise<void>): Promise<BuyWrites> {
  if (!UUID.test(userId)) throw new Error(`not an account id: ${userId}`);
  const tables = (
    await pool.query<{ table_name: string }>(
      `SELECT c.table_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
       WHERE c.table_schema = current_schema() AND c.column_name = 'user_id' ORDER BY c.table_name`,
    )
  ).rows.map((r) => r.table_name);
  const counts = async (): Promise<BuyWrites> => {
    const cols = tables.map((t) => `(SELECT count(*) FROM "${t}" WHERE user_id::text = $1) AS "${t}"`);
    const row = (
      await pool.query<Record<string, string>>(
        `SELECT ${[...cols, '(SELECT coalesce(max(event_seq), 0) FROM account_event_seqs WHERE user_id::text = $1) AS event_seq'].join(', ')}`,
        [userId],
      )
    ).rows[0]!;
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  };
  const listener = new Client({ connectionString: url });
  await listener.connect();
  try {
    let announced = 0;
    listener.on('notification', (n) => {
      if (n.channel === ACCOUNT_EVENTS_CHANNEL && n.payload?.startsWith(`${userId}:`)) announced += 1;
    });
    await listener.query(`LISTEN ${ACCOUNT_EVENTS_CHANNEL}`);
    const before = await counts();
    await buy();
    await new Promise((r) => setTimeout(r, ANNOUNCED_WITHIN_MS));
    const after = await counts();
    const writes: BuyWrites = {};
    for (const k of Object.keys(after)) if (after[k] !== before[k]) writes[k] = after[k]! - before[k]!;
    if (announced) writes.announcements = announced;
    return writes;
  } finally {
    await listener.end();
  }
}

/** The two sides' writes side by side, `table: service/raw`, and whether they agree. */
export function compareWrites(service: BuyWrites, raw: BuyWrites): { same: boolean; text: string } {
  const keys = [...new Set([...Object.keys(service), ...Object.keys(raw)])].sort();
  const same = keys.every((k) => (service[k] ?? 0) === (raw[k] ?? 0));
  return { same, text: keys.map((k) => `${k} ${service[k] ?? 0}/${raw[k] ?? 0}`).join(', ') };
}
