import type { Estimate } from '../benchmark/estimate';
import { meanWithTInterval } from './t-interval';

/** One ended run of a suite scenario, as the board reads it: whose, which scenario, its frozen alpha (null: none). */
export interface SuiteRun {
  runId: string;
  userId: string;
  displayName: string;
  isAgent: boolean;
  scenario: string;
  alpha: number | null;
  endedAt: Date;
}

/** An owner's suite record: per scenario the alpha of the latest ended run, and their mean with its interval. */
export interface SuiteRecord {
  userId: string;
  displayName: string;
  isAgent: boolean;
  /** Scenarios counted: those whose latest ended run has an alpha. */
  scenarios: number;
  /** Mean alpha across the counted scenarios, n scenarios, Student-t 95 % interval. */
  meanAlpha: Estimate;
  /** The run counted for each scenario played, by scenario name. */
  runs: Array<{ scenario: string; runId: string; alpha: number | null; endedAt: string }>;
}

export interface RankedSuiteRecord extends SuiteRecord {
  rank: number;
}

/**
 * Every owner's suite record from their ended runs. A scenario counts the owner's LATEST ended run of it, not the best:
 * a best-of-many-tries would reward rerunning a scenario until luck came, and the mean would no longer estimate the
 * agent's alpha on the suite. A latest run without an alpha (no stated forecast resolved) leaves the scenario uncounted;
 * it is still listed.
 */
export function suiteRecords(runs: readonly SuiteRun[]): SuiteRecord[] {
  const latest = new Map<string, Map<string, SuiteRun>>();
  for (const r of runs) {
    const mine = latest.get(r.userId) ?? new Map<string, SuiteRun>();
    latest.set(r.userId, mine);
    const held = mine.get(r.scenario);
    if (!held || later(r, held)) mine.set(r.scenario, r);
  }
  return [...latest.values()].map((byScenario) => {
    const chosen = [...byScenario.values()].sort((a, b) => (a.scenario < b.scenario ? -1 : a.scenario > b.scenario ? 1 : 0));
    const alphas = chosen.flatMap((r) => (r.alpha === null ? [] : [r.alpha]));
    const first = chosen[0]!;
    return {
      userId: first.userId,
      displayName: first.displayName,
      isAgent: first.isAgent,
      scenarios: alphas.length,
      meanAlpha: meanWithTInterval(alphas),
      runs: chosen.map((r) => ({ scenario: r.scenario, runId: r.runId, alpha: r.alpha, endedAt: r.endedAt.toISOString() })),
    };
  });
}

/** Ranks the records with at least `minScenarios` counted scenarios: higher mean alpha first, then more scenarios, then id. */
export function rankSuiteRecords(records: readonly SuiteRecord[], minScenarios: number): RankedSuiteRecord[] {
  return records
    .filter((r) => r.scenarios >= minScenarios && r.meanAlpha.value !== null)
    .sort((a, b) => b.meanAlpha.value! - a.meanAlpha.value! || b.scenarios - a.scenarios || (a.userId < b.userId ? -1 : 1))
    .map((r, i) => ({ ...r, rank: i + 1 }));
}

/** The later of two runs of one scenario: by when they ended, then by run id so the choice never depends on order. */
function later(a: SuiteRun, b: SuiteRun): boolean {
  const d = a.endedAt.getTime() - b.endedAt.getTime();
  return d > 0 || (d === 0 && a.runId > b.runId);
}
