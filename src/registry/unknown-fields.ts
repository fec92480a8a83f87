/**
 * Strict inputs (issue 34 item 1): a method's input is a strict object, so a field it does not know is refused, never
 * dropped (a stray `limitPrice` on a market buy once filled at the market without a word). The error names the field
 * and the nearest known one.
 */

/** Levenshtein distance, for the "did you mean" of an unknown field. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The known field nearest an unknown one, when it is near enough to be a likely slip (case, a letter or two, a synonym's prefix). */
export function nearestField(unknown: string, known: readonly string[]): string | undefined {
  const lower = unknown.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = name.toLowerCase() === lower ? 0 : distance(lower, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(unknown.length / 3)) ? best.name : undefined;
}

/** The sentence an unknown field gets: its name, the nearest known name if any, else the known ones. */
export function unknownFieldMessage(fields: readonly string[], known: readonly string[]): string {
  const parts = fields.map((f) => {
    const near = nearestField(f, known);
    return near ? `${f} (did you mean ${near}?)` : f;
  });
  return `unknown field${fields.length > 1 ? 's' : ''} ${parts.join(', ')}; this method takes ${known.length ? known.join(', ') : 'no fields'}`;
}
