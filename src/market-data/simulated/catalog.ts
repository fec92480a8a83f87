import { decimalDigits, normal, pick, uniform } from './random';
import { EVENT_KINDS, TEMPLATE_LIST, templateFor, whenOf, type Category, type EventKind, type Question, type Template } from './questions';
import { DAY_MS } from './venue-calendar';

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
const DAY = DAY_MS;
/** How many days past its drawn end a dated question may move to reach a day of its occasion (speed 1). */
const SNAP_DAYS = 10;
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
const S_OCCASION = 10;

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

/**
 * What an event group holds: its kind and, at speed 1, the end of the real occasion it is about. At speed 1 the occasions
 * choose their groups, not the other way round: each occasion of each kind is listed (with its kind's share) in the group
 * its drawn lead falls in, so one occasion is listed at most once and no two events ask the same question; a group two
 * occasions fall in holds a yearly one first, else the one with the smaller draw. At other speeds a group draws its kind, as before calendars.
 */
interface EventPlan {
  kind: EventKind;
  endAtMs: number | null;
}

type EventOf = { kind: EventKind; listed: string[]; membership: EventMembership; endAtMs: number | null } | null;

/**
 * What the catalogue has worked out for one (seed, speed), by number: event plans by group, events and drafts by k, the
 * markets on their own by end day (every k up to `indexedTo` indexed) and each day's questions. Pure caches of pure
 * functions, dropped whole when they grow past MAX_CACHED entries.
 */
interface CatalogMemo {
  plans: Map<number, EventPlan | null>;
  events: Map<number, EventOf>;
  drafts: Map<number, Draft>;
  byDay: Map<number, number[]>;
  indexedFrom: number;
  indexedTo: number;
  questions: Map<number, Map<number, Question & { category: Category }>>;
}
const MEMOS = new Map<string, CatalogMemo>();
const MAX_CACHED = 400_000;
const MAX_MEMOS = 64;

function memoOf(p: CatalogParams): CatalogMemo {
  const key = `${p.seed}:${speedKey(p.speed)}`;
  let memo = MEMOS.get(key);
  if (!memo || memo.drafts.size + memo.events.size > MAX_CACHED) {
    if (!memo && MEMOS.size >= MAX_MEMOS) MEMOS.clear();
    memo = { plans: new Map(), events: new Map(), drafts: new Map(), byDay: new Map(), indexedFrom: 0, indexedTo: -1, questions: new Map() };
    MEMOS.set(key, memo);
  }
  return memo;
}

function remember<V>(cache: Map<number, V>, key: number, make: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined || cache.has(key)) return hit as V;
  const value = make();
  cache.set(key, value);
  return value;
}

function groupMs(p: CatalogParams): number {
  return (EVENT_GROUP * SPAWN_MS) / p.speed;
}

function eventPlan(p: CatalogParams, g: number): EventPlan | null {
  return remember(memoOf(p).plans, g, () => {
    const sk = speedKey(p.speed);
    const e = (i: number) => uniform(p.seed, S_EVENT, sk, g, i);
    if (p.speed !== 1) return e(1) < EVENT_SHARE ? { kind: pick(EVENT_KINDS, e(2)), endAtMs: null } : null;
    const from = SIM_EPOCH_MS + g * groupMs(p);
    const to = from + groupMs(p);
    let best: EventPlan | null = null;
    let bestDraw = 3;
    EVENT_KINDS.forEach((kind, ki) => {
      const { isDay, hour, leadDays, share } = kind.calendar;
      const first = Math.floor((from + leadDays[0] * DAY) / DAY) * DAY;
      for (let day = first; day <= to + (leadDays[1] + 1) * DAY; day += DAY) {
        if (!isDay(day)) continue;
        const o = (i: number) => uniform(p.seed, S_OCCASION, ki, day / DAY, i);
        if (o(1) >= share) continue;
        const endAtMs = day + hour(day) * HOUR;
        const listedAt = endAtMs - (leadDays[0] + o(2) * (leadDays[1] - leadDays[0])) * DAY;
        // A yearly occasion (listed always) goes before a frequent one (listed at a share), so none is left unlisted.
        const draw = o(3) + (share < 1 ? 1 : 0);
        if (listedAt < from || listedAt >= to || draw >= bestDraw) continue;
        best = { kind, endAtMs };
        bestDraw = draw;
      }
    });
    return best;
  });
}

/** The event a market belongs to, if any: its kind, its listed candidates (in order), its place and (speed 1) its end. */
export function eventOf(p: CatalogParams, k: number): EventOf {
  return remember(memoOf(p).events, k, () => eventOfUncached(p, k));
}

function eventOfUncached(p: CatalogParams, k: number): EventOf {
  const sk = speedKey(p.speed);
  const g = Math.floor(k / EVENT_GROUP);
  const plan = eventPlan(p, g);
  if (!plan) return null;
  const index = k - g * EVENT_GROUP;
  if (index > MAX_LISTED) return null;
  const e = (i: number) => uniform(p.seed, S_EVENT, sk, g, i);
  const { kind } = plan;
  const pool = [...kind.candidates((i) => e(10 + i))];
  // A Fisher-Yates shuffle of the pool by the event's draws, then its first ones listed.
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(e(20 + i) * (i + 1)));
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
  }
  const listed = pool.slice(0, Math.min(pool.length, MIN_LISTED + Math.floor(e(3) * (MAX_LISTED - MIN_LISTED + 1))));
  if (index > listed.length) return null;
  return { kind, listed, membership: { leader: g * EVENT_GROUP, index, size: listed.length + 1 }, endAtMs: plan.endAtMs };
}

function createdAtOf(p: CatalogParams, born: number): number {
  return Math.floor(SIM_EPOCH_MS + (born + uniform(p.seed, S_SPEC, speedKey(p.speed), born, 1)) * (SPAWN_MS / p.speed));
}

/**
 * A dated question ends on a day of its occasion (its template's calendar, speed 1 only): the first such day from its
 * drawn end within SNAP_DAYS, at the occasion's hour, at least MIN_LIFE_MS after its birth; null when there is none (the
 * market then takes another template).
 */
function onItsCalendar(createdAtMs: number, endAtMs: number, template: Template): number | null {
  if (!template.closeOn) return endAtMs;
  for (let day = Math.floor(endAtMs / DAY) * DAY, n = 0; n <= SNAP_DAYS; day += DAY, n++) {
    const hour = template.closeOn(day);
    if (hour !== null && day + hour * HOUR - createdAtMs >= MIN_LIFE_MS) return day + hour * HOUR;
  }
  return null;
}

const PLAIN_TEMPLATES = TEMPLATE_LIST.filter((t) => !t.template.closeOn);

/** A market on its own before its question: its times and template (the drawn one, or the next whose calendar fits). */
interface Draft {
  createdAtMs: number;
  endAtMs: number;
  category: Category;
  template: Template;
}

function draftOf(p: CatalogParams, k: number): Draft {
  return remember(memoOf(p).drafts, k, () => {
    const sk = speedKey(p.speed);
    const d = (i: number) => uniform(p.seed, S_SPEC, sk, k, i);
    const createdAtMs = createdAtOf(p, k);
    // Log-uniform lifetimes: as many hour-long markets as month-long ones are born, but the long ones dominate what is open.
    const life = Math.exp(Math.log(MIN_LIFE_MS) + d(2) * (Math.log(MAX_LIFE_MS) - Math.log(MIN_LIFE_MS))) / p.speed;
    const grid = Math.max(1000, HOUR / p.speed);
    const drawnEnd = Math.ceil((createdAtMs + life) / grid) * grid;
    if (p.speed !== 1) return { createdAtMs, endAtMs: drawnEnd, ...templateFor(d) };
    for (let a = 0; a < 64; a++) {
      const t = templateFor(a === 0 ? d : (i) => d(1000 * a + i));
      const endAtMs = onItsCalendar(createdAtMs, drawnEnd, t.template);
      if (endAtMs !== null) return { createdAtMs, endAtMs, ...t };
    }
    const plain = PLAIN_TEMPLATES[0]!;
    return { createdAtMs, endAtMs: drawnEnd, ...plain };
  });
}

/**
 * The questions of the markets on their own that end on one UTC day (every question's date is its end date, so two
 * markets can only share a question if they end on the same day). In order of k, each takes its template's question
 * with its own fill-ins; if an earlier one took that question, it draws other fill-ins, then other templates of the same
 * calendar, until its question is new. So a question is listed at most once.
 */
function dayQuestions(p: CatalogParams, day: number): Map<number, Question & { category: Category }> {
  const memo = memoOf(p);
  return remember(memo.questions, day, () => {
    const sk = speedKey(p.speed);
    const spawn = SPAWN_MS / p.speed;
    // Every market that may end on the day is born within `reach` before it: index the markets on their own by end day
    // over that range (extending the range indexed so far, or starting afresh when it lies far from it).
    const reach = MAX_LIFE_MS / p.speed + Math.max(1000, HOUR / p.speed) + (p.speed === 1 ? (SNAP_DAYS + 1) * DAY : 0);
    const from = Math.max(0, Math.floor((day - reach - SIM_EPOCH_MS) / spawn) - 1);
    const to = Math.floor((day + DAY - SIM_EPOCH_MS) / spawn) + 1;
    if (memo.indexedTo < memo.indexedFrom || from > memo.indexedTo + (to - from) || to < memo.indexedFrom - (to - from)) {
      memo.byDay.clear();
      index(p, memo, from, to);
      memo.indexedFrom = from;
      memo.indexedTo = to;
    }
    if (from < memo.indexedFrom) index(p, memo, from, memo.indexedFrom - 1);
    if (to > memo.indexedTo) index(p, memo, memo.indexedTo + 1, to);
    memo.indexedFrom = Math.min(memo.indexedFrom, from);
    memo.indexedTo = Math.max(memo.indexedTo, to);
    const taken = new Set<string>();
    const out = new Map<number, Question & { category: Category }>();
    for (const k of [...(memo.byDay.get(day) ?? [])].sort((x, y) => x - y)) {
      const draft = draftOf(p, k);
      const when = whenOf(new Date(draft.endAtMs), draft.endAtMs - draft.createdAtMs < 2 * DAY);
      const d = (i: number) => uniform(p.seed, S_SPEC, sk, k, i);
      // Other fill-ins first, then other templates of the same calendar, then (a calendar of one question, like the Bank
      // of England's meeting) a template of no calendar: its question reads as well at the same close.
      const sameCalendar = TEMPLATE_LIST.filter((t) => t.template.closeOn === draft.template.closeOn);
      let q: (Question & { category: Category }) | null = null;
      for (let a = 0; a < 64 && !q; a++) {
        const { category, template } = a < 8 ? draft : pick(a < 24 ? sameCalendar : PLAIN_TEMPLATES, d(5000 + a));
        const candidate = { category, ...template((i) => d((a === 0 ? 200 : 6000 + 100 * a) + i), when) };
        if (!taken.has(candidate.question)) q = candidate;
      }
      // Past 64 tries (only when a compressed day holds more markets than the bank has questions) the first one stands.
      q ??= { category: draft.category, ...draft.template((i) => d(200 + i), when) };
      taken.add(q.question);
      out.set(k, q);
    }
    return out;
  });
}

/** Indexes the markets on their own among k = from..to by their end day. */
function index(p: CatalogParams, memo: CatalogMemo, from: number, to: number): void {
  for (let k = from; k <= to; k++) {
    if (eventOf(p, k)) continue;
    const end = Math.floor(draftOf(p, k).endAtMs / DAY) * DAY;
    const list = memo.byDay.get(end);
    if (list) list.push(k);
    else memo.byDay.set(end, [k]);
  }
}

export function marketSpec(p: CatalogParams, k: number): SimMarketSpec {
  const sk = speedKey(p.speed);
  const d = (i: number) => uniform(p.seed, S_SPEC, sk, k, i);
  const event = eventOf(p, k);
  let createdAtMs: number;
  let endAtMs: number;
  let q: Question & { category: Category };
  if (event) {
    // An event's members are born with its leader and share its end: its occasion's, or (compressed time) its kind's life.
    createdAtMs = createdAtOf(p, event.membership.leader);
    const grid = Math.max(1000, HOUR / p.speed);
    endAtMs = event.endAtMs ?? Math.ceil((createdAtMs + (event.kind.lifeDays * DAY) / p.speed) / grid) * grid;
    const when = whenOf(new Date(endAtMs), endAtMs - createdAtMs < 2 * DAY);
    q = {
      category: event.kind.category,
      ...(event.membership.index < event.listed.length
        ? event.kind.question(event.listed[event.membership.index]!, when)
        : event.kind.field(event.listed, when)),
    };
  } else {
    const draft = draftOf(p, k);
    createdAtMs = draft.createdAtMs;
    endAtMs = draft.endAtMs;
    q = dayQuestions(p, Math.floor(endAtMs / DAY) * DAY).get(k)!;
  }
  const lifeMs = endAtMs - createdAtMs;
  const resolveAtMs = endAtMs + Math.round(Math.min(MAX_RESOLUTION_DELAY_MS / p.speed, Math.max((5 * 60_000) / p.speed, lifeMs * 0.02)));
  const stepMs = Math.max(MIN_STEP_MS / p.speed, lifeMs / MAX_STEPS);
  const steps = Math.max(1, Math.ceil(lifeMs / stepMs));
  // Total log-odds wander over a life of 1.2 to 3.0, whatever the length, so every market moves.
  const lifeVol = 1.2 + 1.8 * d(3);
  const finalVolume = Math.round(Math.min(80e6, Math.max(1_000, Math.exp(Math.log(150_000) + 1.6 * normal(p.seed, S_SPEC, sk, k, 5)))) * 100) / 100;
  // Busier markets quote tighter: a spread of 0.2 to 2 cents.
  const spreadTicks = Math.max(1, Math.min(10, Math.round(10 - Math.log10(finalVolume) * 1.3)));
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
  // A dated question may end up to SNAP_DAYS (and the occasion's hour) after its drawn life (speed 1).
  const snap = p.speed === 1 ? (SNAP_DAYS + 1) * DAY : 0;
  const from = Math.floor((tMs - SIM_EPOCH_MS - snap - (MAX_LIFE_MS + MAX_RESOLUTION_DELAY_MS + DAY) / p.speed - HOUR / p.speed) / spawn) - 1;
  return { from: Math.max(0, from), to };
}
