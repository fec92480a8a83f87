import { decimalDigits, normal, uniform } from './random';
import { questionFor, type Category } from './questions';

/**
 * The simulated venue's catalog: market k is a pure function of (seed, speed, k), public (what decides its price path,
 * news and outcome is sealed: venue-seal.ts). Markets are born on
 * a fixed grid from SIM_EPOCH (one every SPAWN_MS / speed) and live from hours to months, so at any
 * moment about 300 are open, new ones keep appearing and old ones end and resolve.
 */

export interface CatalogParams {
  seed: number;
  /** SIM_SPEED: lifetimes, spawn spacing and price steps all shrink by this factor. */
  speed: number;
}

export interface SimMarketSpec {
  k: number;
  id: string;
  slug: string;
  question: string;
  description: string;
  category: Category;
  createdAtMs: number;
  endAtMs: number;
  /** Closed (no trading) from end until the resolution is published. */
  resolveAtMs: number;
  stepMs: number;
  steps: number;
  /** Log-odds standard deviation of one step. */
  stepVol: number;
  /** Volume traded over the whole life, in dollars. */
  finalVolume: number;
  /** Half the bid/ask spread, in micro-dollars. */
  halfSpreadMicro: bigint;
  yesTokenId: string;
  noTokenId: string;
}

export const SIM_EPOCH_MS = Date.UTC(2024, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const SPAWN_MS = 2.2 * HOUR;
export const MIN_LIFE_MS = 6 * HOUR;
export const MAX_LIFE_MS = 180 * DAY;
const MAX_RESOLUTION_DELAY_MS = 2 * HOUR;
const MAX_STEPS = 4000;
const MIN_STEP_MS = 60_000;
export const VOID_RATE = 0.01;

// Draw streams, so adding a draw to one never shifts another.
const S_SPEC = 1;
const S_TOKEN = 4;

const TOKEN_DIGITS = 77;
const TOKEN_PREFIX_DIGITS = TOKEN_DIGITS - 11;

function speedKey(speed: number): number {
  return Math.round(speed * 1000);
}

function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/g, '');
}

function tokenPrefix(p: CatalogParams, k: number, outcome: 1 | 2): string {
  return decimalDigits(p.seed, TOKEN_PREFIX_DIGITS, S_TOKEN, speedKey(p.speed), k, outcome);
}

/** A token id in the venue's style: a 77-digit decimal whose tail encodes the market and side. */
export function tokenIdOf(p: CatalogParams, k: number, outcome: 'YES' | 'NO'): string {
  const o = outcome === 'YES' ? 1 : 2;
  return `${tokenPrefix(p, k, o)}${String(k).padStart(10, '0')}${o}`;
}

export function parseTokenId(p: CatalogParams, tokenId: string): { k: number; outcome: 'YES' | 'NO' } | null {
  if (tokenId.length !== TOKEN_DIGITS || !/^\d+$/.test(tokenId)) return null;
  const k = Number(tokenId.slice(TOKEN_PREFIX_DIGITS, TOKEN_DIGITS - 1));
  const o = Number(tokenId[TOKEN_DIGITS - 1]);
  if (o !== 1 && o !== 2) return null;
  if (tokenId.slice(0, TOKEN_PREFIX_DIGITS) !== tokenPrefix(p, k, o)) return null;
  return { k, outcome: o === 1 ? 'YES' : 'NO' };
}

export function parseMarketRef(ref: string): number | null {
  const m = /^sim-(\d{1,9})$/.exec(ref) ?? /-(\d{1,9})$/.exec(ref);
  return m ? Number(m[1]) : null;
}

export function marketSpec(p: CatalogParams, k: number): SimMarketSpec {
  const sk = speedKey(p.speed);
  const d = (i: number) => uniform(p.seed, S_SPEC, sk, k, i);
  const spawn = SPAWN_MS / p.speed;
  const createdAtMs = Math.floor(SIM_EPOCH_MS + (k + d(1)) * spawn);
  // Log-uniform lifetimes: as many hour-long markets as month-long ones are born, but the long ones dominate what is open.
  const life = Math.exp(Math.log(MIN_LIFE_MS) + d(2) * (Math.log(MAX_LIFE_MS) - Math.log(MIN_LIFE_MS))) / p.speed;
  const grid = Math.max(1000, HOUR / p.speed);
  const endAtMs = Math.ceil((createdAtMs + life) / grid) * grid;
  const lifeMs = endAtMs - createdAtMs;
  const resolveAtMs = endAtMs + Math.round(Math.min(MAX_RESOLUTION_DELAY_MS / p.speed, Math.max((5 * 60_000) / p.speed, lifeMs * 0.02)));
  const stepMs = Math.max(MIN_STEP_MS / p.speed, lifeMs / MAX_STEPS);
  const steps = Math.max(1, Math.ceil(lifeMs / stepMs));
  // Total log-odds wander over a life of 1.2 to 3.0, whatever the length, so every market moves.
  const lifeVol = 1.2 + 1.8 * d(3);
  const finalVolume = Math.round(Math.min(80e6, Math.max(1_000, Math.exp(Math.log(150_000) + 1.6 * normal(p.seed, S_SPEC, sk, k, 5)))) * 100) / 100;
  // Busier markets quote tighter: a spread of 0.2 to 2 cents.
  const spreadTicks = Math.max(1, Math.min(10, Math.round(10 - Math.log10(finalVolume) * 1.3)));
  const q = questionFor(d, new Date(endAtMs), lifeMs < 2 * DAY);
  return {
    k,
    id: `sim-${k}`,
    slug: `${slugify(q.question)}-${k}`,
    question: q.question,
    description: `${q.rule} This is a simulated market: its prices and outcome come from this service's built-in simulated venue, not from a real exchange.`,
    category: q.category,
    createdAtMs,
    endAtMs,
    resolveAtMs,
    stepMs,
    steps,
    stepVol: lifeVol / Math.sqrt(steps),
    finalVolume,
    halfSpreadMicro: BigInt(spreadTicks) * 1000n,
    yesTokenId: tokenIdOf(p, k, 'YES'),
    noTokenId: tokenIdOf(p, k, 'NO'),
  };
}

/** The k of every market that may be open or awaiting resolution at `tMs` (callers filter by their times). */
export function candidateRange(p: CatalogParams, tMs: number): { from: number; to: number } {
  const spawn = SPAWN_MS / p.speed;
  const to = Math.floor((tMs - SIM_EPOCH_MS) / spawn);
  const from = Math.floor((tMs - SIM_EPOCH_MS - (MAX_LIFE_MS + MAX_RESOLUTION_DELAY_MS) / p.speed - HOUR / p.speed) / spawn) - 1;
  return { from: Math.max(0, from), to };
}
