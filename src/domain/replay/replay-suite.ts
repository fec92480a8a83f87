import type { SimulatedScenario } from './replay-runs';

/**
 * The published replay suites (issue 35 item 3): named scenarios of the simulated venue with information, the same for
 * every agent, so suite records compare. A suite is frozen: its checksum is sha256 over its canonical description and a
 * fingerprint of what the venue's generator makes of each scenario under a public probe secret
 * (src/market-data/simulated/suite-fingerprint.ts); the scenarios themselves are sealed under the suite's own secret,
 * whose commitment get_venue_commitments publishes and which it reveals when the suite retires. A test pins the checksum below, so a change to the suite or to the venue's generator fails it; publish a new suite (v2)
 * rather than change this one, or every record on its board would stop meaning the same thing.
 *
 * suite-v1: 20 scenarios × 30 simulated days. The venue's size is its own (src/market-data/simulated/catalog.ts): about
 * 300 markets open at any moment (200 to 400), lives from hours to months, so each window sees markets open, news land
 * and some 100 markets resolve. Scenario i has seed 35_100 + i (35: the issue; the seeds are arbitrary but fixed).
 */
export interface ReplaySuite {
  name: string;
  description: string;
  /** Simulated days of each scenario's window. */
  days: number;
  seeds: readonly number[];
  /** Scenarios an owner needs on the suite board before it ranks them. */
  minScenarios: number;
  /** sha256 (hex) of the canonical description and the venue's fingerprint: what the suite test recomputes. */
  checksum: string;
  /**
   * When the suite retired (ISO), or null while it is current. Its scenarios are sealed under the suite's own secret
   * (sealed outcomes, issue 49), which get_venue_commitments reveals from this moment on; not in the checksum.
   */
  retiredAt: string | null;
}

export interface SuiteScenario extends SimulatedScenario {
  name: string;
  suite: string;
  index: number;
}

export const SUITE_V1: ReplaySuite = {
  name: 'suite-v1',
  description: 'Replay suite v1: 20 seeds of the simulated venue with information, 30 simulated days each, from 2025-01-01, ~300 open markets.',
  days: 30,
  seeds: Array.from({ length: 20 }, (_, i) => 35_100 + i),
  // Half the suite: a mean over fewer scenarios has an interval too wide to rank by.
  minScenarios: 10,
  checksum: 'a736d89f0134c5b04af75b67c9fb2a2f2a98d23eb302a946994d95b623c0bf11',
  retiredAt: null,
};

export const SUITES: readonly ReplaySuite[] = [SUITE_V1];

/** A scenario's name: the suite's, a slash and its two-digit index (suite-v1/07). */
export function scenarioName(suite: ReplaySuite, index: number): string {
  return `${suite.name}/${String(index).padStart(2, '0')}`;
}

export function scenariosOf(suite: ReplaySuite): SuiteScenario[] {
  return suite.seeds.map((seed, index) => ({ name: scenarioName(suite, index), suite: suite.name, index, seed, days: suite.days }));
}

export function suiteNamed(name: string): ReplaySuite | undefined {
  return SUITES.find((s) => s.name === name);
}

/** The named scenario (suite-v1/07), or undefined when no published suite has it. */
export function scenarioNamed(name: string): SuiteScenario | undefined {
  const m = /^([a-z0-9-]+)\/(\d{2})$/.exec(name);
  const suite = m ? suiteNamed(m[1]!) : undefined;
  return suite ? scenariosOf(suite)[Number(m![2])] : undefined;
}

/**
 * The canonical description the checksum covers: every field that decides what a scenario replays, as arrays in a fixed
 * order (so the serialisation has one form).
 */
export function canonicalDescription(suite: ReplaySuite, startMs: number): string {
  return JSON.stringify([
    'replay-suite',
    suite.name,
    suite.description,
    new Date(startMs).toISOString(),
    suite.days,
    suite.minScenarios,
    scenariosOf(suite).map((s) => [s.name, s.seed, s.days]),
  ]);
}
