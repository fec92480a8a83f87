import { createHash, createHmac } from 'node:crypto';
import { seasonOf } from '../../domain/benchmark/seasons';
import { keyedNormals, streamKey } from './keyed-stream';

/**
 * Sealed outcomes (issue 49 item 1). The simulated venue's catalog (questions, times, tokens, starting prices) is a
 * public function of the seed; everything that decides where a price goes and how a market ends (its price steps,
 * its news, its outcome draws) comes from a secret the public cannot know until it is revealed:
 *
 *   scope secret   S = HMAC-SHA256(master, "sealed-venue|" + scope)       (scope: season|2026-12, suite|suite-v1, …)
 *   commitment     C = SHA-256(S)                                           (published while S is sealed)
 *   market key     K = HMAC-SHA256(S, "market|" + seed + "|" + speed×1000 + "|" + k)
 *
 * K's second and third words are the void and winner draws, its fourth the starting YES log-odds (so nothing public
 * says which way a market leans before it opens); its price steps are the ChaCha20 stream keyed by
 * HMAC-SHA256(K, "stream|" + path kind) (keyed-stream.ts: full width, so a path cannot be searched for its seed), and
 * its news draws are HMAC-SHA256(K, "news|" + block) words. A reveal publishes S alone: the master secret and every other
 * scope stay sealed, and anyone can check SHA-256(S) = C and recompute every outcome of the scope.
 */

export const SECRET_BYTES = 32;

/** The scope's secret under the master secret. */
export function scopeSecret(master: Buffer, scope: string): Buffer {
  return createHmac('sha256', master).update(`sealed-venue|${scope}`).digest();
}

/** The commitment to a scope's secret: SHA-256 of its bytes, hex. */
export function commitmentOf(secret: Buffer): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** The scope a live-venue market belongs to: the season (UTC month) its resolution is published in. */
export function seasonScope(season: string): string {
  return `season|${season}`;
}

export function suiteScope(suite: string): string {
  return `suite|${suite}`;
}

/** Replays of a seed of one's own: one scope, never revealed (it would reveal every such seed's venue at once). */
export const OWN_REPLAY_SCOPE = 'replay|own';

/** Which scope secret keys a market, by when it resolves. */
export interface VenueSeal {
  secretFor(resolveAtMs: number): Buffer;
}

/** The live venue: a market is sealed under the season its resolution lands in, so a season's reveal tells nothing still open. */
export function seasonSeal(master: Buffer): VenueSeal {
  const bySeason = new Map<string, Buffer>();
  return {
    secretFor(resolveAtMs) {
      const season = seasonOf(new Date(resolveAtMs));
      let s = bySeason.get(season);
      if (!s) bySeason.set(season, (s = scopeSecret(master, seasonScope(season))));
      return s;
    },
  };
}

/** One scope secret for every market: a replay scenario (its suite's or one's own), or a revealed scope being checked. */
export function fixedSeal(secret: Buffer): VenueSeal {
  return { secretFor: () => secret };
}

const TWO_32 = 4294967296;
const NEWS_BLOCK_WORDS = 8;

/** The sealed draws of one market. */
export class MarketDraws {
  readonly voidDraw: number;
  readonly winnerDraw: number;
  /** Starting YES log-odds, uniform in [−2.4, 2.4]. */
  readonly x0: number;
  private readonly blocks: Buffer[] = [];

  constructor(private readonly key: Buffer) {
    this.voidDraw = (key.readUInt32BE(4) + 0.5) / TWO_32;
    this.winnerDraw = (key.readUInt32BE(8) + 0.5) / TWO_32;
    this.x0 = -2.4 + (4.8 * (key.readUInt32BE(12) + 0.5)) / TWO_32;
  }

  /** The standard normals of `count` price steps of one kind of path ("market", "informed"), from its keyed stream. */
  stepNormals(kind: string, count: number): Float64Array {
    return keyedNormals(streamKey(this.key, kind), count);
  }

  /** The i-th news draw, uniform in (0, 1). */
  news(i: number): number {
    const b = Math.floor(i / NEWS_BLOCK_WORDS);
    while (this.blocks.length <= b) this.blocks.push(createHmac('sha256', this.key).update(`news|${this.blocks.length}`).digest());
    return (this.blocks[b]!.readUInt32BE((i % NEWS_BLOCK_WORDS) * 4) + 0.5) / TWO_32;
  }
}

export function marketDraws(seal: VenueSeal, seed: number, speed: number, k: number, resolveAtMs: number): MarketDraws {
  const key = createHmac('sha256', seal.secretFor(resolveAtMs))
    .update(`market|${seed}|${Math.round(speed * 1000)}|${k}`)
    .digest();
  return new MarketDraws(key);
}

/** A secret given as 64 hex digits, or null when it is not one. */
export function parseSecret(hex: string): Buffer | null {
  return /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : null;
}
