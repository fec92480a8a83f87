/** Every throughput figure of a bench's JSON line, by its path (`rest.rps`, `fills.perS`, `folder.recordsPerSecond`). */
export function throughputs(x: unknown, at = ''): Record<string, number> {
  if (x === null || typeof x !== 'object') return {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(x as Record<string, unknown>)) {
    const p = at ? `${at}.${k}` : k;
    if (typeof v === 'number' && (k === 'rps' || k === 'perS' || k.endsWith('PerSecond'))) out[p] = v;
    else Object.assign(out, throughputs(v, p));
  }
  return out;
}
