import { seasonOf, seasonRange } from '../../domain/benchmark/seasons';
import { SUITES, type ReplaySuite } from '../../domain/replay/replay-suite';
import { MAX_LIFE_MS, SIM_EPOCH_MS } from './catalog';
import { commitmentOf, scopeSecret, seasonScope, suiteScope } from './venue-seal';

/** How anyone checks a reveal: said with every answer, so an agent needs no other document. */
export const COMMITMENT_SCHEME =
  'commitment = SHA-256 of the 32 secret bytes (hex). Each market of the scope is keyed by HMAC-SHA256(secret, "market|<seed>|<speed×1000>|<k>"), ' +
  'which decides its starting price, price steps, news and outcome; scripts/verify-venue.ts recomputes every outcome from a revealed secret and checks the commitment.';

/** The longest a live-venue market lasts from birth to resolution, before SIM_SPEED divides it (catalog.ts bounds). */
const LONGEST_MS = MAX_LIFE_MS + 3 * 3_600_000;

export interface ScopeCommitment {
  /** season|YYYY-MM or suite|<name> (venue-seal.ts). */
  scope: string;
  commitment: string;
  state: 'sealed' | 'revealed';
  /** The scope's secret (hex) once revealed; null while sealed. */
  secret: string | null;
}

export interface SeasonCommitment extends ScopeCommitment {
  season: string;
  /** The season's end: every market sealed under it has resolved by then, and its secret is revealed. */
  revealAt: string;
}

export interface SuiteCommitment extends ScopeCommitment {
  suite: string;
  /** When the suite retired and its secret was revealed; null while it is current. */
  revealAt: string | null;
}

function scope(master: Buffer, name: string, revealed: boolean): ScopeCommitment {
  const secret = scopeSecret(master, name);
  return { scope: name, commitment: commitmentOf(secret), state: revealed ? 'revealed' : 'sealed', secret: revealed ? secret.toString('hex') : null };
}

/**
 * The live simulated venue's seasons, from its first market's to the last any market alive now can resolve in: a market
 * is sealed under the season its resolution lands in, and a season's secret is revealed once the season has ended.
 */
export function seasonCommitments(master: Buffer, nowMs: number, speed: number): SeasonCommitment[] {
  const out: SeasonCommitment[] = [];
  const last = seasonOf(new Date(nowMs + LONGEST_MS / speed));
  for (let season = seasonOf(new Date(SIM_EPOCH_MS)); season <= last;) {
    const end = seasonRange(season)!.to;
    out.push({ season, revealAt: end.toISOString(), ...scope(master, seasonScope(season), nowMs >= end.getTime()) });
    season = seasonOf(end);
  }
  return out;
}

/** Every published suite's commitment; a retired suite's secret is revealed. */
export function suiteCommitments(master: Buffer, nowMs: number, suites: readonly ReplaySuite[] = SUITES): SuiteCommitment[] {
  return suites.map((s) => {
    const revealed = s.retiredAt !== null && nowMs >= Date.parse(s.retiredAt);
    return { suite: s.name, revealAt: s.retiredAt, ...scope(master, suiteScope(s.name), revealed) };
  });
}
