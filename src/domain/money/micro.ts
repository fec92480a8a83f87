/**
 * Money and shares are integer micro-units (1e-6) held as bigint: exact, never binary floats.
 * On the wire they are JSON numbers with at most 6 decimals, converted here and only here.
 */
export const MICRO = 1_000_000n;

export type Micro = bigint;

/** A wire number to micro-units, rounded half away from zero at the 6th decimal. */
export function toMicro(value: number): Micro {
  if (!Number.isFinite(value)) throw new RangeError('not a finite number');
  // toFixed(6) rounds the decimal expansion correctly for the magnitudes we accept (< 1e9).
  const [int, frac = ''] = Math.abs(value).toFixed(6).split('.');
  const micro = BigInt(int!) * MICRO + BigInt(frac.padEnd(6, '0'));
  return value < 0 ? -micro : micro;
}

/** Micro-units to a wire number (the nearest double to the exact 6-decimal value). */
export function fromMicro(micro: Micro): number {
  const neg = micro < 0n;
  const abs = neg ? -micro : micro;
  const s = `${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}`;
  return neg ? -Number(s) : Number(s);
}

/** a × b / c with the quotient rounded toward zero (buyer never receives a share not paid for). */
export function mulDivFloor(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b) / c;
}

/** a × b / c rounded half up (for values owed to the account, e.g. proceeds). */
export function mulDivRound(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b * 2n + c) / (2n * c);
}
