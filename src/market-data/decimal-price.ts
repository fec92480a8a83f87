import { MICRO, toMicro, type Micro } from '../domain/money/micro';

const DECIMAL = /^(\d*)(?:\.(\d*))?$/;

/**
 * A venue price ("0.535", ".512", 0.54, "1") to exact micro-units, or null when it is not a price in
 * [0, 1]. Strings are converted digit by digit (rounded half up at the 6th decimal), never via a float.
 */
export function priceToMicro(value: unknown): Micro | null {
  const micro = decimalToMicro(value);
  return micro !== null && micro <= MICRO ? micro : null;
}

/** A venue size or amount ("1250.5", 300) to exact micro-units, or null when it is not a decimal >= 0 (below 1e12). */
export function sizeToMicro(value: unknown): Micro | null {
  const micro = decimalToMicro(value);
  return micro !== null && micro < 1_000_000_000_000n * MICRO ? micro : null;
}

function decimalToMicro(value: unknown): Micro | null {
  let micro: Micro;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    micro = toMicro(value);
  } else if (typeof value === 'string') {
    const m = DECIMAL.exec(value.trim());
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return null;
    const frac = (m[2] ?? '').padEnd(7, '0');
    micro = BigInt(m[1] || '0') * MICRO + BigInt(frac.slice(0, 6)) + (Number(frac[6]) >= 5 ? 1n : 0n);
  } else {
    return null;
  }
  return micro >= 0n ? micro : null;
}
