/**
 * Smoke mode (BENCH_SMOKE=1): each bench runs its real code paths on tiny data for a second or less of load a phase, so CI
 * can run every bench on every change (test/bench/smoke.test.ts) and a bench that no longer runs is caught the day it
 * breaks, not the day someone next tunes it. Its figures mean nothing; only that it ends with its JSON line.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A bench's setting: its environment variable when set, else the smoke value in smoke mode, else the full run's. */
export function benchSetting(name: string, full: number, smoke: number): number {
  const given = process.env[name];
  return given !== undefined && given !== '' ? Number(given) : SMOKE ? smoke : full;
}
