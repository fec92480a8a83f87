import { createHash } from 'node:crypto';
import { AppError } from '../../errors/app-error';
import { MICRO, toMicro, type Micro } from '../money/micro';

/** Where a forecast's market trades: a mirrored binary market (one probability, YES) or a community market (one per outcome). */
export type ForecastVenue = 'mirrored' | 'community';

/** Which call stated it: submit_forecast, or the trade or order that carried it. */
export type ForecastSource = 'stated' | 'paper_trade' | 'place_order' | 'buy_community_shares';

export const RATIONALE_MAX = 280;

/** What the caller states and the service knows before the chain: everything of a record but its place in the chain. */
export interface ForecastFacts {
  id: string;
  userId: string;
  marketId: string;
  venue: ForecastVenue;
  source: ForecastSource;
  /** Mirrored: [P(YES)]; community: one per outcome, in the market's outcome order, summing to exactly 1. */
  probabilitiesMicro: Micro[];
  rationale: string | null;
  createdAt: Date;
  /**
   * A mirrored market's YES mid as the agent was quoted it at this instant (the live quote, issue 49 item 3): what the
   * record is stamped with, never the last synced price. Null: no live quote could be had (stamped null, unknown).
   * Undefined: no live prices in this service (the last synced price is stamped, as before).
   */
  quotedMidMicro?: Micro | null;
}

/** A record's place in its account's chain and the market's mid(s) stamped at that instant. */
export interface ChainFacts {
  seq: number;
  prevHash: string | null;
  /** The market's mid price(s) when stated, in the order of probabilitiesMicro; null where the market had none. */
  midsMicro: Array<Micro | null>;
}

export type ForecastRecord = ForecastFacts & ChainFacts & { hash: string };

/**
 * A probability a caller sent, in micro-units: 0..1 with at most 6 decimals (a finer one is refused, never rounded,
 * so the stored forecast is exactly the one stated).
 */
function probabilityMicro(p: number, field: string): Micro {
  if (!Number.isFinite(p) || p < 0 || p > 1) throw new AppError('VALIDATION_ERROR', `${field} must be between 0 and 1.`);
  if (Number(p.toFixed(6)) !== p) throw new AppError('VALIDATION_ERROR', `${field} has more than 6 decimal places.`);
  return toMicro(p);
}

/**
 * The probabilities of a forecast on a market of `venue` with `outcomes` outcomes, checked and in micro-units: a mirrored
 * market takes `probability` (that YES resolves) alone; a community market takes `probabilities`, one per outcome, summing
 * to exactly 1.
 */
export function statedProbabilities(venue: ForecastVenue, outcomes: number, stated: { probability?: number; probabilities?: number[] }): Micro[] {
  if ((stated.probability === undefined) === (stated.probabilities === undefined))
    throw new AppError('VALIDATION_ERROR', 'Give either probability (a mirrored market) or probabilities (a community market), not both.');
  if (venue === 'mirrored') {
    if (stated.probability === undefined)
      throw new AppError('VALIDATION_ERROR', 'A mirrored market takes probability: the probability that YES resolves.', {
        hint: 'Send probability, not probabilities.',
      });
    return [probabilityMicro(stated.probability, 'probability')];
  }
  const ps = stated.probabilities;
  if (ps === undefined)
    throw new AppError('VALIDATION_ERROR', 'A community market takes probabilities: one per outcome, in its outcome order, summing to 1.', {
      hint: 'Send probabilities, not probability.',
    });
  if (ps.length !== outcomes) throw new AppError('VALIDATION_ERROR', `This market has ${outcomes} outcomes; probabilities has ${ps.length}.`);
  const micro = ps.map((p, i) => probabilityMicro(p, `probabilities[${i}]`));
  const sum = micro.reduce((a, b) => a + b, 0n);
  if (sum !== MICRO) throw new AppError('VALIDATION_ERROR', `probabilities must sum to exactly 1 (they sum to ${Number(sum) / 1e6}).`);
  return micro;
}

/** A rationale as stored: trimmed, null when empty. Control characters are refused by the method's schema. */
export const rationaleOf = (r: string | undefined): string | null => (r === undefined || r.trim() === '' ? null : r.trim());

type Canonicalize = (value: unknown) => string | undefined;
let canonicalizer: Promise<Canonicalize> | undefined;
/** RFC 8785 (JSON Canonicalization Scheme) from the `canonicalize` package (an ES module, loaded once). */
const canonical = (): Promise<Canonicalize> => (canonicalizer ??= import('canonicalize').then((m) => m.default as Canonicalize));

/** The object a record's hash is taken over; the chain's three fields as given (values, or slots for SQL to fill). */
function payload(f: ForecastFacts, chain: { seq: unknown; prevHash: unknown; mids: unknown }) {
  return {
    v: 1,
    id: f.id,
    userId: f.userId,
    marketId: f.marketId,
    venue: f.venue,
    source: f.source,
    probabilities: f.probabilitiesMicro.map(Number),
    rationale: f.rationale,
    createdAt: f.createdAt.toISOString(),
    ...chain,
  };
}

/** A record's canonical payload (RFC 8785): probabilities and mids as integer micro-units, the time in ISO 8601 (ms). */
export async function canonicalPayload(f: ForecastFacts, c: ChainFacts): Promise<string> {
  const text = (await canonical())(payload(f, { seq: c.seq, prevHash: c.prevHash, mids: c.midsMicro.map((m) => (m === null ? null : Number(m))) }));
  return text!;
}

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The canonical payload of a record around its chain fields, which the inserting statement fills in under the account's
 * lock (so a trade's forecast costs one statement): [before mids, before prevHash, before seq, after]. Written out here
 * rather than through the canonicalize package, which walks and sorts the object on every trade (~40 µs of a trade's
 * CPU): the payload's shape is fixed, so its keys' RFC 8785 order is too (createdAt < id < marketId < mids < prevHash <
 * probabilities < rationale < seq < source < userId < v < venue), and RFC 8785 writes strings and integers as
 * JSON.stringify does. canonicalPayload (the package) stays the reference: verifyChain checks every record with it, and
 * a property test holds the two equal. The text filled in is canonical JSON of its own (an integer array, a quoted hex
 * string or null, an integer), so the whole equals canonicalPayload of the stored record.
 */
export function payloadAround(f: ForecastFacts): [string, string, string, string] {
  const q = JSON.stringify;
  return [
    `{"createdAt":${q(f.createdAt.toISOString())},"id":${q(f.id)},"marketId":${q(f.marketId)},"mids":`,
    ',"prevHash":',
    `,"probabilities":[${f.probabilitiesMicro.join(',')}],"rationale":${q(f.rationale)},"seq":`,
    `,"source":${q(f.source)},"userId":${q(f.userId)},"v":1,"venue":${q(f.venue)}}`,
  ];
}

/** The hash a record must carry: sha256 (hex) of its canonical payload. */
export async function recordHash(r: ForecastRecord): Promise<string> {
  return sha256Hex(await canonicalPayload(r, r));
}

export type ChainCheck = { ok: true; head: string | null; length: number } | { ok: false; seq: number; reason: string };

/**
 * Verifies an account's chain (its records in any order): seq runs 1, 2, ... without a gap, each record's prevHash is
 * the previous record's hash (null for the first), and each hash is the hash of its own canonical payload. The first
 * break is reported; a chain that holds gives its head (the last hash).
 */
export async function verifyChain(records: readonly ForecastRecord[]): Promise<ChainCheck> {
  const sorted = [...records].sort((a, b) => a.seq - b.seq);
  let prev: string | null = null;
  for (const [i, r] of sorted.entries()) {
    if (r.seq !== i + 1) return { ok: false, seq: r.seq, reason: `expected seq ${i + 1}` };
    if (i > 0 && r.userId !== sorted[0]!.userId) return { ok: false, seq: r.seq, reason: 'another account' };
    if (r.prevHash !== prev) return { ok: false, seq: r.seq, reason: 'prevHash is not the previous record’s hash' };
    if ((await recordHash(r)) !== r.hash) return { ok: false, seq: r.seq, reason: 'hash does not match the record' };
    prev = r.hash;
  }
  return { ok: true, head: prev, length: sorted.length };
}
