import { decimalDigits, normal, pick, uniform } from './random';
import { EVENT_KINDS, templateFor, whenOf, type Category, type EventKind } from './questions';

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
  /** A member of a mutually exclusive event (exactly one member resolves YES), or null for a market on its own. */
  event: EventMembership | null;
}

/** Where a market sits in its event: the event's first market (its leader, whose draws decide the winner), its place and the event's size. */
export interface EventMembership {
  leader: number;
  index: number;
  size: number;
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
const S_EVENT = 9;

/**
 * Events: the catalog's k are grouped by EVENT_GROUP; a share EVENT_SHARE of groups open with one mutually exclusive event
 * whose members are the group's first markets (2 to 5 listed candidates and the rest of the field), born together and
 * ending together. Two groups are EVENT_GROUP spawns (52.8 h at speed 1) apart, so two events of a kind never end on one date.
 */
export const EVENT_GROUP = 24;
export const EVENT_SHARE = 0.35;
const MIN_LISTED = 2;
const MAX_LISTED = 5;

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

/** The event a market belongs to, if any: its kind, its listed candidates (in order) and its place. */
export function eventOf(p: CatalogParams, k: number): { kind: EventKind; listed: string[]; membership: EventMembership } | null {
  const sk = speedKey(p.speed);
  const g = Math.floor(k / EVENT_GROUP);
  const e = (i: number) => uniform(p.seed, S_EVENT, sk, g, i);
  if (e(1) >= EVENT_SHARE) return null;
  const kind = pick(EVENT_KINDS, e(2));
  const pool = [...kind.candidates((i) => e(10 + i))];
  // A Fisher-Yates shuffle of the pool by the event's draws, then its first ones listed.
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(e(20 + i) * (i + 1)));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const listed = pool.slice(0, Math.min(pool.length, MIN_LISTED + Math.floor(e(3) * (MAX_LISTED - MIN_LISTED + 1))));
  const index = k - g * EVENT_GROUP;
  if (index > listed.length) return null;
  return { kind, listed, membership: { leader: g * EVENT_GROUP, index, size: listed.length + 1 } };
}

/** A close-decided market ends at its close: the close hour on its end date (the next day's when that is too early). Speed 1 only. */
function atClose(p: CatalogParams, createdAtMs: number, endAtMs: number, closeHourUtc?: (dateMs: number) => number): number {
  if (!closeHourUtc || p.speed !== 1) return endAtMs;
  const day = Math.floor(endAtMs / DAY) * DAY;
  const close = day + closeHourUtc(day) * HOUR;
  return close - createdAtMs >= MIN_LIFE_MS ? close : day + DAY + closeHourUtc(day + DAY) * HOUR;
}

export function marketSpec(p: CatalogParams, k: number): SimMarketSpec {
  const sk = speedKey(p.speed);
  const d = (i: number) => uniform(p.seed, S_SPEC, sk, k, i);
  const spawn = SPAWN_MS / p.speed;
  const event = eventOf(p, k);
  // An event's members are born with its leader and share its end.
  const born = event ? event.membership.leader : k;
  const createdAtMs = Math.floor(SIM_EPOCH_MS + (born + uniform(p.seed, S_SPEC, sk, born, 1)) * spawn);
  // Log-uniform lifetimes: as many hour-long markets as month-long ones are born, but the long ones dominate what is open.
  const life = event
    ? (event.kind.lifeDays * DAY) / p.speed
    : Math.exp(Math.log(MIN_LIFE_MS) + d(2) * (Math.log(MAX_LIFE_MS) - Math.log(MIN_LIFE_MS))) / p.speed;
  const grid = Math.max(1000, HOUR / p.speed);
  const { category, template } = templateFor(d);
  const endAtMs = atClose(p, createdAtMs, Math.ceil((createdAtMs + life) / grid) * grid, event ? event.kind.closeHourUtc : template.closeHourUtc);
  const lifeMs = endAtMs - createdAtMs;
  const resolveAtMs = endAtMs + Math.round(Math.min(MAX_RESOLUTION_DELAY_MS / p.speed, Math.max((5 * 60_000) / p.speed, lifeMs * 0.02)));
  const stepMs = Math.max(MIN_STEP_MS / p.speed, lifeMs / MAX_STEPS);
  const steps = Math.max(1, Math.ceil(lifeMs / stepMs));
  // Total log-odds wander over a life of 1.2 to 3.0, whatever the length, so every market moves.
  const lifeVol = 1.2 + 1.8 * d(3);
  const finalVolume = Math.round(Math.min(80e6, Math.max(1_000, Math.exp(Math.log(150_000) + 1.6 * normal(p.seed, S_SPEC, sk, k, 5)))) * 100) / 100;
  // Busier markets quote tighter: a spread of 0.2 to 2 cents.
  const spreadTicks = Math.max(1, Math.min(10, Math.round(10 - Math.log10(finalVolume) * 1.3)));
  const when = whenOf(new Date(endAtMs), lifeMs < 2 * DAY);
  const q = !event
    ? { category, ...template((i) => d(200 + i), when) }
    : {
        category: event.kind.category,
        ...(event.membership.index < event.listed.length
          ? event.kind.question(event.listed[event.membership.index]!, when)
          : event.kind.field(event.listed, when)),
      };
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
    event: event?.membership ?? null,
  };
}

/** The k of every market that may be open or awaiting resolution at `tMs` (callers filter by their times). */
export function candidateRange(p: CatalogParams, tMs: number): { from: number; to: number } {
  const spawn = SPAWN_MS / p.speed;
  // An event's members are born with its leader, up to a group before their own place on the grid.
  const to = Math.floor((tMs - SIM_EPOCH_MS) / spawn) + EVENT_GROUP;
  // A close-decided market may end up to a day after its drawn life.
  const from = Math.floor((tMs - SIM_EPOCH_MS - (MAX_LIFE_MS + MAX_RESOLUTION_DELAY_MS + DAY) / p.speed - HOUR / p.speed) / spawn) - 1;
  return { from: Math.max(0, from), to };
}
