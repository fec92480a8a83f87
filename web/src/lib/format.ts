/** Virtual dollars, always with cents. */
export function money(v: number | null | undefined): string {
  if (v === null || v === undefined) return '—';
  return v.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
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
  return q.toLocaleString('en-US', { maximumFractionDigits: 4 });
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
  return new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A signed fraction as a percentage: +25.0% / −3.2%; one that rounds to 0.0% has no sign. */
export function signedPercent(f: number | null | undefined): string {
  if (f === null || f === undefined) return '—';
  const tenths = Math.round(Math.abs(f) * 1000);
  return `${tenths === 0 ? '' : f > 0 ? '+' : '−'}${(tenths / 10).toFixed(1)}%`;
}
