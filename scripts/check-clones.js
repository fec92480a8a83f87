#!/usr/bin/env node
// The copy-paste check of `npm run lint`: jscpd over the TypeScript of src/ and over the SQL its string literals
// hold. jscpd reads a template literal as one token, so a statement copied from one service into another is
// invisible to it in the TypeScript; each file's SQL literals are therefore also written, on their own lines, to a
// .sql file of their own and scanned as SQL (with literals such as 'buy' and 'pool' read alike, so a near-copy that
// differs only in them counts). Usage: node scripts/check-clones.js [dir] [--max N] [--max-money N]
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

/**
 * Everything the check enforces, in one place. Paths are relative to src/; a path ending in "/" is a folder.
 * `max` and `maxInMoneyPaths` are the counts of 2026-11-27 (3594045): lower them as clones go, never raise them.
 */
const CLONES = {
  // jscpd's defaults: a clone is at least 50 tokens over at least 5 lines. Fewer reports import lists and
  // three-line guards; more misses whole copied statements (a debit and its journal entry is some 80 SQL tokens).
  minTokens: 50,
  minLines: 5,
  // Clones allowed over src/ (code and SQL together).
  max: 3,
  // The money and trade paths (issue 32): a clone with either copy in one of them is listed on every run, and at most
  // `maxInMoneyPaths` of them are allowed; 0 fails the check on any clone there, which is the bar.
  moneyPaths: ['domain/ledger/', 'domain/trading/', 'domain/community/', 'domain/orders/'],
  maxInMoneyPaths: 0,
  // Not scanned: a migration is history, never edited, and one that redefines a function repeats the old definition.
  ignore: ['db/migrations/'],
};

const SQL_KEYWORDS = /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH)\b/;

const under = (file, paths) => paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

/** The .ts files under `dir` (relative paths, '/'-separated), those in CLONES.ignore left out. */
function sources(dir) {
  const out = [];
  const walk = (rel) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (r.endsWith('.ts') && !r.endsWith('.d.ts') && !under(r, CLONES.ignore)) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

/**
 * The SQL of a TypeScript file: its string and template literals that read as SQL, each where it stands (every other
 * character blanked, line breaks kept, so a line of the result is the same line of the source), each followed by a
 * token of its own so that no clone runs from one literal into the next. Undefined when the file holds no SQL.
 */
function sqlOf(ts, text, file) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const spans = [];
  const visit = (node) => {
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node) || ts.isStringLiteral(node)) {
      const start = node.getStart(sf) + 1;
      const end = node.getEnd() - 1;
      if (SQL_KEYWORDS.test(text.slice(start, end))) return void spans.push([start, end]);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (spans.length === 0) return undefined;
  const blank = (s) => s.replace(/[^\n]/g, '');
  let sql = '';
  let at = 0;
  spans.forEach(([start, end], i) => {
    sql += `${blank(text.slice(at, start))}${text.slice(start, end)} literal_end_${i} `;
    at = end;
  });
  return sql + blank(text.slice(at));
}

/** Runs jscpd over `dir` in `format`; its clones as { kind, lines, a: {file, start, end}, b }, paths relative to `dir`. */
function jscpd(dir, format, extra) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'check-clones-report-'));
  try {
    const args = [
      require.resolve('jscpd/run-jscpd.js'),
      ...['--min-tokens', String(CLONES.minTokens), '--min-lines', String(CLONES.minLines), '--format', format],
      ...['--mode', 'weak', '--no-gitignore', '--reporters', 'json', '--output', out, '--no-colors', ...extra, dir],
    ];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    const report = path.join(out, 'jscpd-report.json');
    if (r.status !== 0 || !fs.existsSync(report)) throw new Error(`jscpd failed (${r.status}): ${r.stderr || r.stdout}`);
    const side = (f) => ({
      file: f.name
        .split(path.sep)
        .join('/')
        .replace(/\.sql$/, ''),
      start: f.start,
      end: f.end,
    });
    return JSON.parse(fs.readFileSync(report, 'utf8')).duplicates.map((d) => ({
      kind: format === 'sql' ? 'SQL' : 'code',
      lines: d.lines,
      a: side(d.firstFile),
      b: side(d.secondFile),
    }));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

/** The clones in the TypeScript under `dir` and in its SQL, and those of them that touch the money and trade paths. */
function checkClones(dir) {
  const ts = require('typescript');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'check-clones-'));
  try {
    const code = path.join(tmp, 'code');
    const sql = path.join(tmp, 'sql');
    const files = sources(dir);
    for (const f of files) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      fs.mkdirSync(path.dirname(path.join(code, f)), { recursive: true });
      fs.writeFileSync(path.join(code, f), text);
      const q = sqlOf(ts, text, f);
      if (q === undefined) continue;
      fs.mkdirSync(path.dirname(path.join(sql, f)), { recursive: true });
      fs.writeFileSync(path.join(sql, `${f}.sql`), q);
    }
    const clones = [...(files.length ? jscpd(code, 'typescript', []) : []), ...(fs.existsSync(sql) ? jscpd(sql, 'sql', ['--ignore-literals']) : [])];
    const money = clones.filter((c) => under(c.a.file, CLONES.moneyPaths) || under(c.b.file, CLONES.moneyPaths));
    return { files: files.length, clones, money };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const describe = (c) => `${c.a.file}:${c.a.start}-${c.a.end} = ${c.b.file}:${c.b.start}-${c.b.end} (${c.kind}, ${c.lines} lines)`;

if (require.main === module) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const n = Number(args.splice(i, 2)[1]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a count`);
    return n;
  };
  const max = option('--max', CLONES.max);
  const maxMoney = option('--max-money', CLONES.maxInMoneyPaths);
  const dir = args[0] ?? 'src';
  try {
    const { files, clones, money } = checkClones(dir);
    const codeCount = clones.filter((c) => c.kind === 'code').length;
    const summary =
      `${dir}: ${files} files, ${clones.length} clones (${codeCount} in code, ${clones.length - codeCount} in SQL; at most ${max}), ` +
      `${money.length} in the money and trade paths (at most ${maxMoney})`;
    const failed = clones.length > max || money.length > maxMoney;
    const print = failed ? console.error : console.log;
    print(summary);
    for (const c of money) print(`  money/trade clone: ${describe(c)}`);
    if (clones.length > max) for (const c of clones.filter((x) => !money.includes(x))) print(`  clone: ${describe(c)}`);
    if (failed) {
      if (clones.length > max) console.error(`${clones.length} clones where at most ${max} are allowed: remove the copies (scripts/check-clones.js)`);
      if (money.length > maxMoney) console.error(`${money.length} clones in the money and trade paths where at most ${maxMoney} are allowed`);
      process.exit(1);
    }
    if (clones.length < max || money.length < maxMoney) {
      console.log(`fewer clones than allowed: lower CLONES.max to ${clones.length} and maxInMoneyPaths to ${money.length} (scripts/check-clones.js)`);
    }
  } catch (err) {
    console.error(err);
    process.exit(1);
  }
}

module.exports = { checkClones, CLONES };
