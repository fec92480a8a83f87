/**
 * One Intl formatter per format, made on first use and kept. `toLocaleString` with options builds a new formatter on
 * every call: the home page's first 20 cards spent about 120 ms of a cold load in money() and date() (a CPU profile
 * of bench:web's load), and a kept formatter formats the same text (ECMA-402: toLocaleString is `new
 * Intl.NumberFormat(locales, options).format(x)`).
 */
function kept<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

const usd = kept(() => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 }));
const shareCount = kept(() => new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }));
const day = kept(() => new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric' }));
const minute = kept(() => new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }));

/** A date as a kept formatter writes it; an invalid one as toLocaleString wrote it (format() would throw). */
function formatDate(format: Intl.DateTimeFormat, iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? 'Invalid Date' : format.format(d);
}

/** Virtual dollars, always with cents. */
export function money(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return usd().format(v);
}

/** A signed amount (PnL): +$1.20 / −$0.40; an amount that rounds to zero cents has no sign ($0.00, never −$0.00). */
export function signedMoney(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  const c = Math.round(Math.abs(v) * 100);
  return `${c === 0 ? '' : v > 0 ? '+' : '−'}${money(c / 100)}`;
}

/** A probability price (0..1) as cents, the way prediction markets quote: 0.625 → 62.5¢. */
export function cents(p: number | null | undefined): string {
  if (p === null || p === undefined) return '—';
  return `${(p * 100).toFixed(1)}¢`;
}

/** A probability (0..1) as a percentage. */
export function percent(p: number | null | undefined): string {
  if (p === null || p === undefined) return '—';
  return `${(p * 100).toFixed(1)}%`;
}

export function shares(q: number): string {
  return shareCount().format(q);
}

/** A count of shares with its noun: "1 share", "2.5 shares", "1 YES share" with an outcome. */
export function sharesOf(q: number, outcome?: string): string {
  const n = shares(q);
  return `${n} ${outcome ? `${outcome} ` : ''}${n === '1' ? 'share' : 'shares'}`;
}

/** A share count as a form field starts with it: at most 2 decimals, rounded (a sale clamps to what is held). */
export function sharesInput(q: number): string {
  return String(Math.round(q * 100) / 100);
}

/** How long ago, in the largest whole unit: "12 s", "3 min", "2 h", "5 d". */
export function age(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'unknown';
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86400)} d`;
}

export function date(iso: string | null | undefined): string {
  if (!iso) return '—';
  return formatDate(day(), iso);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return formatDate(minute(), iso);
}

/** A signed fraction as a percentage: +25.0% / −3.2%; one that rounds to 0.0% has no sign. */
export function signedPercent(f: number | null | undefined): string {
  if (f === null || f === undefined) return '—';
  const tenths = Math.round(Math.abs(f) * 1000);
  return `${tenths === 0 ? '' : f > 0 ? '+' : '−'}${(tenths / 10).toFixed(1)}%`;
}
