#!/usr/bin/env node
// The money check of `npm run lint`: only the ledger module writes money (DESIGN.md, "Money (one path)"). Any other
// file under src/ that writes the journal (transfers), an account's cash or reserved cash (cash_balances, and the columns
// users.balance_micro and users.reserved_micro it replaced), a position (positions: held and reserved shares) or a
// community pool's cash (pool_balances, and the column community_pools.cash_micro it replaced) fails it. Usage: node scripts/check-money-writes.js [dir]
const fs = require('node:fs');
const path = require('node:path');

/** Where money may be written, relative to the checked folder: the ledger module, and the migrations that shape the tables. */
const ALLOWED = ['domain/ledger/', 'db/migrations/'];

/** Statements that write a money table, whatever they set. `FOR UPDATE` / `FOR NO KEY UPDATE` (a lock) is not a write. */
const TABLE_WRITE =
  /(?<!\bFOR\s+)(?<!\bKEY\s+)\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?|MERGE\s+INTO|COPY)\s+(?:ONLY\s+)?(transfers|positions|pool_balances|cash_balances)\b/gi;
/**
 * Tables whose rows hold money in some columns only (the rest is written by their owner): an UPDATE whose SET list
 * assigns one of those columns, or an INSERT whose column list names one, is a money write.
 */
const MONEY_COLUMNS = {
  users: /\b(balance_micro|reserved_micro)\b/i,
  community_pools: /\b(cash_micro)\b/i,
};
const updateOf = (table) =>
  new RegExp(
    String.raw`(?<!\bFOR\s+)(?<!\bKEY\s+)\bUPDATE\s+(?:ONLY\s+)?${table}\b[^\`'"]*?\bSET\b([\s\S]*?)(?=\bWHERE\b|\bRETURNING\b|\bFROM\b|[\`'"]|$)`,
    'gi',
  );
const insertOf = (table) => new RegExp(String.raw`\bINSERT\s+INTO\s+${table}\s*(?:AS\s+\w+\s*)?\(([^)]*)\)`, 'gi');

/** The file's text without its comments (a comment may describe a write; only code can make one). */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

function filesUnder(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** Every money write outside the ledger module under `dir`: `{ file, line, what }`. */
function checkMoneyWrites(dir) {
  const problems = [];
  const files = filesUnder(dir);
  for (const full of files) {
    const file = path.relative(dir, full).split(path.sep).join('/');
    if (ALLOWED.some((a) => file.startsWith(a))) continue;
    const text = code(fs.readFileSync(full, 'utf8'));
    for (const m of text.matchAll(TABLE_WRITE))
      problems.push({ file, line: lineOf(text, m.index), what: `${m[1].replace(/\s+/g, ' ').toUpperCase()} ${m[2]}` });
    for (const [table, column] of Object.entries(MONEY_COLUMNS)) {
      for (const m of text.matchAll(updateOf(table))) {
        const col = column.exec(m[1]);
        if (col && new RegExp(`\\b${col[1]}\\s*=`, 'i').test(m[1])) problems.push({ file, line: lineOf(text, m.index), what: `UPDATE ${table} SET ${col[1]}` });
      }
      for (const m of text.matchAll(insertOf(table))) {
        const col = column.exec(m[1]);
        if (col) problems.push({ file, line: lineOf(text, m.index), what: `INSERT INTO ${table} (${col[1]})` });
      }
    }
  }
  return { files: files.length, problems };
}

if (require.main === module) {
  const dir = process.argv[2] ?? 'src';
  const { files, problems } = checkMoneyWrites(dir);
  for (const p of problems) console.error(`${dir}/${p.file}:${p.line}: ${p.what} outside the ledger module (call src/domain/ledger/ instead)`);
  if (problems.length) {
    console.error(`${dir}: ${problems.length} money writes outside ${ALLOWED.join(', ')}`);
    process.exit(1);
  }
  console.log(`${dir}: ${files} files, money is written only by ${ALLOWED.join(' and ')}`);
}

module.exports = { checkMoneyWrites, ALLOWED, filesUnder, lineOf };
