import { decodeCursor, encodeCursor } from '../../db/keyset-cursor';
import type { Estimate } from '../benchmark/estimate';
import { meanWithTInterval } from '../benchmark/statistics';

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

/** An owner's suite record: every ended run of the suite's scenarios, and the mean alpha over all of them with its interval. */
export interface SuiteRecord {
  userId: string;
  displayName: string;
  isAgent: boolean;
  /** Distinct scenarios with at least one run that has an alpha (the board's minimum counts these). */
  scenarios: number;
  /** Runs counted: every ended run with an alpha, deleted ones included. */
  runCount: number;
  /** Mean alpha over every counted run, n runs, Student-t 95 % interval. */
  meanAlpha: Estimate;
  /** Every ended run, by scenario then end. */
  runs: Array<{ scenario: string; runId: string; alpha: number | null; endedAt: string }>;
}

export interface RankedSuiteRecord extends SuiteRecord {
  rank: number;
}

/**
 * Every owner's suite record from their ended runs. EVERY completed run counts (issue 49 item 3), not the best nor the
 * latest: keeping one run per scenario let an owner rerun (or delete the latest run of) a scenario until luck came, and
 * the mean would no longer estimate the agent's alpha on the suite. Runs are read from suite_results, which
 * delete_replay leaves alone. A run without an alpha (no stated forecast resolved) is listed, not counted.
 */
export function suiteRecords(runs: readonly SuiteRun[]): SuiteRecord[] {
  const byOwner = new Map<string, SuiteRun[]>();
  for (const r of runs) byOwner.set(r.userId, [...(byOwner.get(r.userId) ?? []), r]);
  return [...byOwner.values()].map((mine) => {
    const ordered = [...mine].sort(byScenarioThenEnd);
    const counted = ordered.filter((r) => r.alpha !== null);
    const first = ordered[0]!;
    return {
      userId: first.userId,
      displayName: first.displayName,
      isAgent: first.isAgent,
      scenarios: new Set(counted.map((r) => r.scenario)).size,
      runCount: counted.length,
      meanAlpha: meanWithTInterval(counted.map((r) => r.alpha!)),
      runs: ordered.map((r) => ({ scenario: r.scenario, runId: r.runId, alpha: r.alpha, endedAt: r.endedAt.toISOString() })),
    };
  });
}

/** Ranks the records with at least `minScenarios` counted scenarios: higher mean alpha first, then more scenarios, then id. */
export function rankSuiteRecords(records: readonly SuiteRecord[], minScenarios: number): RankedSuiteRecord[] {
  return records
    .filter((r) => r.scenarios >= minScenarios && r.meanAlpha.value !== null)
    .sort(boardOrder)
    .map((r, i) => ({ ...r, rank: i + 1 }));
}

/** The board's order: higher mean alpha first, then more scenarios, then id (a total order: ids are unique). */
function boardOrder(a: { meanAlpha: { value: number | null }; scenarios: number; userId: string }, b: typeof a): number {
  return b.meanAlpha.value! - a.meanAlpha.value! || b.scenarios - a.scenarios || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);
}

const POSITION_KEY = /^(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\|(\d{1,9})$/i;

/**
 * One page of a ranked board: the rows after the cursor's row in the board's order (keyset: an account joining the
 * board while someone pages never repeats or hides another), at most `limit`, and the cursor of the next page.
 */
export function pageSuiteBoard(
  suite: string,
  ranked: readonly RankedSuiteRecord[],
  limit: number,
  cursor: string | undefined,
): { entries: RankedSuiteRecord[]; nextCursor: string | null } {
  const sort = `suite/${suite}`;
  let rest = ranked;
  if (cursor !== undefined) {
    const c = decodeCursor(cursor, sort, (k) => POSITION_KEY.test(k), 'Pass nextCursor from the previous page unchanged, with the same suite.');
    const [, alpha, scenarios] = POSITION_KEY.exec(c.k)!;
    const from = { meanAlpha: { value: Number(alpha) }, scenarios: Number(scenarios), userId: c.i };
    rest = ranked.filter((r) => boardOrder(r, from) > 0);
  }
  const entries = rest.slice(0, limit);
  const last = entries[entries.length - 1];
  return {
    entries,
    nextCursor: rest.length > limit && last ? encodeCursor({ s: sort, k: `${String(last.meanAlpha.value)}|${last.scenarios}`, i: last.userId }) : null,
  };
}

/** Runs in a fixed order whatever the input's: by scenario, then when they ended, then run id. */
function byScenarioThenEnd(a: SuiteRun, b: SuiteRun): number {
  if (a.scenario !== b.scenario) return a.scenario < b.scenario ? -1 : 1;
  const d = a.endedAt.getTime() - b.endedAt.getTime();
  if (d !== 0) return d;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}
