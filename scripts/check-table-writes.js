#!/usr/bin/env node
// The table-owner check of `npm run lint` (issue 50 item 4): every table has one owner — a module (a folder) or a file
// under src/ — that holds every statement writing it; an INSERT/UPDATE/DELETE/TRUNCATE/MERGE/COPY of a table anywhere
// else fails. Migrations shape the tables and may write any. A second check: no file outside the migrations imports a
// migration (a rule cut out of a migration's text is a rule with no owner). Usage: node scripts/check-table-writes.js [dir]
const fs = require('node:fs');
const path = require('node:path');
// The money lint's walk of the sources and its line numbers: one way to read the tree for both lints.
const { filesUnder, lineOf } = require('./check-money-writes');

/** Each table's owner, relative to the checked folder: a folder (ending in /) or a file. */
const OWNERS = {
  a2a_push_configs: 'domain/task-push/',
  a2a_push_cursors: 'domain/task-push/',
  a2a_task_contexts: 'domain/task-push/',
  access_tokens: 'auth/access-tokens.ts',
  account_event_seqs: 'domain/events/',
  account_events: 'domain/events/',
  benchmark_changes: 'domain/benchmark/',
  benchmark_dirty: 'domain/benchmark/',
  benchmark_markets: 'domain/benchmark/',
  benchmark_records: 'domain/benchmark/',
  benchmark_state: 'domain/benchmark/',
  book_claims: 'domain/orders/book-claims.ts',
  book_consumption: 'domain/trading/book-consumption.ts',
  cash_balances: 'domain/ledger/',
  challenge_claims: 'domain/track-record/',
  comments: 'domain/comments/',
  community_markets: 'domain/community/',
  community_outcomes: 'domain/community/',
  community_pools: 'domain/community/',
  community_price_points: 'domain/community/',
  forecast_chain_heads: 'domain/forecasts/forecast-chain.ts',
  forecasts: 'domain/forecasts/forecast-chain.ts',
  idempotency_keys: 'domain/idempotency/',
  market_events: 'market-data/',
  market_settlements: 'domain/trading/settlement-service.ts',
  market_sync_state: 'market-data/',
  market_tokens: 'market-data/',
  markets: 'market-data/',
  mirror_book_history: 'market-data/mirror-history/',
  mirror_market_history: 'market-data/mirror-history/',
  notifications: 'domain/notifications/',
  orders: 'domain/orders/',
  pool_balances: 'domain/ledger/pool-cash.ts',
  portfolio_snapshots: 'domain/portfolio/',
  positions: 'domain/ledger/',
  price_snapshots: 'market-data/',
  replay_runs: 'domain/replay/',
  search_terms: 'market-data/',
  search_terms_state: 'market-data/',
  sessions: 'auth/',
  suite_results: 'domain/replay/',
  trader_activity: 'domain/track-record/',
  trader_results: 'domain/track-record/',
  track_figures: 'domain/track-record/',
  trades: 'domain/trading/trade-records.ts',
  transfers: 'domain/ledger/transfers.ts',
  user_badges: 'domain/track-record/',
  user_calibration: 'domain/track-record/',
  users: 'domain/accounts/',
  venue_secret: 'market-data/simulated/',
  watchlist_entries: 'domain/watchlist/',
  webhook_attempts: 'domain/webhooks/',
  webhook_deliveries: 'domain/webhooks/',
  webhook_endpoints: 'domain/webhooks/',
};

/** Tables a migration dropped, with the one that did: they need no owner, and no code may write them. */
const RETIRED = {
  ledger_entries: 'migration 74 (the journal retired: its transfers carry it)',
};

const ALWAYS = ['db/migrations/'];

const VERB = String.raw`(?<!\bFOR\s+)(?<!\bKEY\s+)(?<!\bDO\s+)\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|MERGE\s+INTO|COPY)\s+(?:ONLY\s+)?`;
const WRITE = new RegExp(`${VERB}([a-z_][a-z0-9_]*)\\b`, 'gi');
const MIGRATION_IMPORT = /\bfrom\s+['"][^'"]*db\/migrations\/[^'"]*['"]|\brequire\(\s*['"][^'"]*db\/migrations\/[^'"]*['"]\s*\)/g;

function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const owns = (owner, file) => (owner.endsWith('/') ? file.startsWith(owner) : file === owner);

/** Every write of a table outside its owner, and every import of a migration outside the migrations: `{ file, line, what }`. */
function checkTableWrites(dir, owners = OWNERS) {
  const problems = [];
  const files = filesUnder(dir);
  for (const full of files) {
    const file = path.relative(dir, full).split(path.sep).join('/');
    if (ALWAYS.some((a) => file.startsWith(a))) continue;
    const text = code(fs.readFileSync(full, 'utf8'));
    for (const m of text.matchAll(WRITE)) {
      const table = m[2].toLowerCase();
      if (table in RETIRED) {
        problems.push({ file, line: lineOf(text, m.index), what: `${m[1].replace(/\s+/g, ' ').toUpperCase()} ${table}, a table dropped by ${RETIRED[table]}` });
        continue;
      }
      const owner = owners[table];
      if (owner === undefined) continue; // not a table (a word in a message)
      if (owns(owner, file)) continue;
      problems.push({ file, line: lineOf(text, m.index), what: `${m[1].replace(/\s+/g, ' ').toUpperCase()} ${table} outside its owner ${owner}` });
    }
    for (const m of text.matchAll(MIGRATION_IMPORT)) {
      problems.push({ file, line: lineOf(text, m.index), what: 'imports a migration (its SQL would be cut from a migration; give the rule an owner module)' });
    }
  }
  // Every table a migration creates has an owner.
  const migrations = path.join(dir, 'db/migrations');
  if (fs.existsSync(migrations)) {
    for (const full of filesUnder(migrations)) {
      const text = fs.readFileSync(full, 'utf8');
      for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_][a-z0-9_]*)/gi)) {
        if (!(m[1].toLowerCase() in owners) && !(m[1].toLowerCase() in RETIRED))
          problems.push({ file: path.relative(dir, full).split(path.sep).join('/'), line: lineOf(text, m.index), what: `table ${m[1]} has no owner` });
      }
    }
  }
  return { files: files.length, problems };
}

if (require.main === module) {
  const dir = process.argv[2] ?? 'src';
  const { files, problems } = checkTableWrites(dir);
  for (const p of problems) console.error(`${dir}/${p.file}:${p.line}: ${p.what}`);
  if (problems.length) {
    console.error(`${dir}: ${problems.length} table writes outside their owners (scripts/check-table-writes.js OWNERS)`);
    process.exit(1);
  }
  console.log(`${dir}: ${files} files, each table is written only by its owner`);
}

module.exports = { checkTableWrites, OWNERS };
