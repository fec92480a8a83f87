import { MARKET_COLUMNS, MARKET_JOINS, type MarketViewRow } from './market-view';

export const SEARCH_LIMIT = 8;

/**
 * How many of the most traded active markets the first pass of search_markets walks (the number
 * lives in its migration, 1700000000003-market-search.ts). A word common enough to matter finds its
 * 8 matches well inside this many rows, so nothing is sorted; a rarer one falls through to the GIN
 * index, whose few matches are cheap to sort.
 */
export const SCAN_LIMIT = 2500;

function words(q: string): string[] {
  const all = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].map((w) => w.slice(0, 40));
  // A lone letter ("a", the "s" of "Trump's") would only narrow by accident; a lone digit ("game 3") means something.
  const meaningful = (w: string) => w.length > 1 || /\p{N}/u.test(w);
  return (all.some(meaningful) ? all.filter(meaningful) : all).slice(0, 6);
}

/** A query as search_markets takes it: the tsquery text, and its terms split into whole words and prefixes. */
export interface SearchTerms {
  query: string;
  whole: string[];
  prefixes: string[];
}

/**
 * The user's words as tsquery text: every word must match, and the last one (the word being typed) is
 * a prefix: "fed rat" → "fed & rat:*". With `allPrefixes`, every word is ("bitc pri" → "bitc:* & pri:*"),
 * which costs more on common prefixes and so is only the second try. Only letters and digits survive,
 * so the result is always valid tsquery syntax; null when no word is left.
 */
export function searchTerms(q: string, allPrefixes = false): SearchTerms | null {
  const ws = words(q);
  if (ws.length === 0) return null;
  const isPrefix = (i: number) => allPrefixes || i === ws.length - 1;
  return {
    query: ws.map((w, i) => (isPrefix(i) ? `${w}:*` : w)).join(' & '),
    whole: ws.filter((_, i) => !isPrefix(i)),
    prefixes: ws.filter((_, i) => isPrefix(i)),
  };
}

/**
 * Active markets matching the terms, highest volume first, at most 8, with their tokens (MarketViewRow
 * columns); parameters from searchParams. The plan is search_markets' (migrations 3 and 8).
 */
export const SEARCH_SQL = `SELECT * FROM search_markets(to_tsquery('simple', $1), $2::text[], $3::text[])`;
export const searchParams = (t: SearchTerms): [string, string[], string[]] => [t.query, t.whole, t.prefixes];

/** When no word matches (a typo), trigram word similarity on the question, still by volume. $1 = the raw query. */
export const FUZZY_SQL = `
SELECT ${MARKET_COLUMNS}
FROM markets m
${MARKET_JOINS}
WHERE m.status = 'active' AND $1 <% m.question
ORDER BY m.volume DESC NULLS LAST, m.id
LIMIT ${SEARCH_LIMIT}`;

/**
 * The statements of one search, in order, through `query` (the service's database, or a bench's raw pool):
 * whole words with the last one a prefix; if nothing matches, every word a prefix; then trigrams (typos).
 * Nothing for a query without words.
 */
export async function findMarketRows(query: (sql: string, params: unknown[]) => Promise<MarketViewRow[]>, text: string): Promise<MarketViewRow[]> {
  return (await findMarketMatches(query, text)).rows;
}

/** Which of the statements found a search's rows: whole words (last a prefix), every word a prefix, or trigrams. */
export type SearchMode = 'w' | 'p' | 'f';

/** findMarketRows, also saying which statement found them, so a later page asks the same one. */
export async function findMarketMatches(
  query: (sql: string, params: unknown[]) => Promise<MarketViewRow[]>,
  text: string,
): Promise<{ rows: MarketViewRow[]; mode: SearchMode }> {
  const terms = searchTerms(text);
  if (!terms) return { rows: [], mode: 'w' };
  let found = await query(SEARCH_SQL, searchParams(terms));
  if (found.length > 0) return { rows: found, mode: 'w' };
  if (terms.whole.length + terms.prefixes.length > 1) {
    found = await query(SEARCH_SQL, searchParams(searchTerms(text, true)!));
    if (found.length > 0) return { rows: found, mode: 'p' };
  }
  if (text.length >= 3) return { rows: await query(FUZZY_SQL, [text.slice(0, 100)]), mode: 'f' };
  return { rows: [], mode: 'w' };
}

/** Where a page of a search ended: its last market's volume (no volume: −1) and id. */
export interface SearchPosition {
  volume: string;
  id: string;
}

/**
 * The matches after a page's last market in search's order (volume down, then id), one more than a page (whether there
 * is a next): keyset, so a market synced in while someone pages moves no later page. Pages after the first are the
 * GIN index's (or the trigram index's) road: rarely asked, and at most 9 rows sorted.
 */
export function searchAfterStatement(mode: SearchMode, text: string, after: SearchPosition): { sql: string; params: unknown[] } {
  const match = mode === 'f' ? '$1 <% m.question' : `m.search_tsv @@ to_tsquery('simple', $1)`;
  const param = mode === 'f' ? text.slice(0, 100) : (searchTerms(text, mode === 'p')?.query ?? '');
  return {
    sql: `SELECT ${MARKET_COLUMNS}
FROM markets m
${MARKET_JOINS}
WHERE m.status = 'active' AND ${match}
  AND (coalesce(m.volume, -1) < $2::float8 OR (coalesce(m.volume, -1) = $2::float8 AND m.id > $3))
ORDER BY coalesce(m.volume, -1) DESC, m.id
LIMIT ${SEARCH_LIMIT + 1}`,
    params: [param, after.volume, after.id],
  };
}
