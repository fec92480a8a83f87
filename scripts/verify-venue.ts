import { readFileSync } from 'node:fs';
import type { Winner } from '../src/market-data/feed';
import { candidateRange, parseMarketRef } from '../src/market-data/simulated/catalog';
import { SimulatedFeed } from '../src/market-data/simulated/simulated-feed';
import { commitmentOf, fixedSeal, parseSecret } from '../src/market-data/simulated/venue-seal';
import { seasonOf, seasonRange } from '../src/domain/benchmark/seasons';

/**
 * Checks a revealed secret of the simulated venue (sealed outcomes, issue 49; docs/market-data.md):
 *
 *   node dist/scripts/verify-venue.js --secret HEX --commitment HEX --seed 42 [--speed 1] [--information on|off]
 *     (--season 2026-11 | --suite suite-v1) [--outcomes claims.json]
 *
 * It checks SHA-256(secret) against the commitment published while the scope was sealed, then recomputes, with the
 * public code alone, the outcome of every market of the scope: with --outcomes (a JSON array of {"marketId", "winner"},
 * e.g. the resolutions the service published) it compares each claim; without, it prints every outcome of a season. A
 * suite's scenarios are the venue at speed 1 with information (--seed: the scenario's seed). Exit status 0 when
 * everything matches, 1 otherwise; the last line is one JSON object.
 */

export interface OutcomeClaim {
  marketId: string;
  winner: Winner;
}

export type VerifyScope = { season: string } | { suite: string };

export interface VerifyInput {
  secret: string;
  commitment: string;
  seed: number;
  speed: number;
  information: boolean;
  scope: VerifyScope;
  outcomes: readonly OutcomeClaim[];
}

export interface VerifyResult {
  commitmentOk: boolean;
  /** Claims recomputed and compared. */
  checked: number;
  mismatches: Array<{ marketId: string; claimed: Winner; recomputed: Winner }>;
  /** Claims that are not a market of the scope (not resolved in the season, or not a market id at all). */
  outOfScope: string[];
  ok: boolean;
}

/** The venue of a revealed scope: every market keyed by the one secret. */
function venueOf(secret: Buffer, input: Pick<VerifyInput, 'seed' | 'speed' | 'information' | 'scope'>): SimulatedFeed {
  const suite = 'suite' in input.scope;
  const opts = { seed: input.seed, speed: suite ? 1 : input.speed, information: suite ? true : input.information, seal: fixedSeal(secret) };
  return new SimulatedFeed(opts, { now: () => new Date(0) });
}

export function verifyVenue(input: VerifyInput): VerifyResult {
  const secret = parseSecret(input.secret);
  const commitmentOk = secret !== null && commitmentOf(secret) === input.commitment.toLowerCase();
  const result: VerifyResult = { commitmentOk, checked: 0, mismatches: [], outOfScope: [], ok: false };
  if (!secret) return result;
  const venue = venueOf(secret, input);
  const season = 'season' in input.scope ? input.scope.season : null;
  for (const claim of input.outcomes) {
    const k = parseMarketRef(claim.marketId);
    const spec = k === null ? null : venue.spec(k);
    if (!spec || spec.id !== claim.marketId || (season !== null && seasonOf(new Date(spec.resolveAtMs)) !== season)) {
      result.outOfScope.push(claim.marketId);
      continue;
    }
    const recomputed = venue.winnerOf(spec);
    result.checked += 1;
    if (recomputed !== claim.winner) result.mismatches.push({ marketId: claim.marketId, claimed: claim.winner, recomputed });
  }
  result.ok = commitmentOk && result.mismatches.length === 0 && result.outOfScope.length === 0;
  return result;
}

/** Every market that resolves in a season, with its outcome recomputed from the season's revealed secret. */
export function seasonOutcomes(input: Omit<VerifyInput, 'outcomes' | 'commitment' | 'scope'> & { season: string }): OutcomeClaim[] {
  const secret = parseSecret(input.secret);
  if (!secret) throw new Error('secret must be 64 hex digits');
  const venue = venueOf(secret, { ...input, scope: { season: input.season } });
  const { from: fromMs, to: toMs } = seasonRange(input.season)!;
  const { from } = candidateRange(venue.params, fromMs.getTime());
  const { to } = candidateRange(venue.params, toMs.getTime());
  const out: OutcomeClaim[] = [];
  for (let k = from; k <= to; k++) {
    const spec = venue.spec(k);
    if (spec.resolveAtMs >= fromMs.getTime() && spec.resolveAtMs < toMs.getTime()) out.push({ marketId: spec.id, winner: venue.winnerOf(spec) });
  }
  return out;
}

function arg(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** The command line: the result object, or a usage error. */
export function runCli(argv: readonly string[], readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): { code: number; output: string } {
  const secret = arg(argv, 'secret');
  const commitment = arg(argv, 'commitment');
  const seed = Number(arg(argv, 'seed'));
  const season = arg(argv, 'season');
  const suite = arg(argv, 'suite');
  if (!secret || !commitment || !Number.isInteger(seed) || (season === undefined) === (suite === undefined)) {
    return {
      code: 2,
      output:
        'usage: verify-venue --secret HEX --commitment HEX --seed N [--speed 1] [--information on|off] (--season YYYY-MM | --suite NAME) [--outcomes FILE]',
    };
  }
  const base = { secret, seed, speed: Number(arg(argv, 'speed') ?? '1'), information: arg(argv, 'information') === 'on' };
  const scope: VerifyScope = season !== undefined ? { season } : { suite: suite! };
  const file = arg(argv, 'outcomes');
  if (file === undefined && season === undefined) return { code: 2, output: 'a suite is checked against --outcomes (the claims of one scenario)' };
  const outcomes = file !== undefined ? (JSON.parse(readFile(file)) as OutcomeClaim[]) : seasonOutcomes({ ...base, season: season! });
  const result = verifyVenue({ ...base, commitment, scope, outcomes });
  const listed = file === undefined ? { outcomes } : {};
  return { code: result.ok ? 0 : 1, output: JSON.stringify({ ...result, ...listed }) };
}

if (require.main === module) {
  const { code, output } = runCli(process.argv.slice(2));
  console.log(output);
  process.exitCode = code;
}
