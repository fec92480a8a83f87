import type { Clock } from '../../clock';
import { SimulatedFeed } from './simulated-feed';
import { fixedSeal, OWN_REPLAY_SCOPE, scopeSecret, suiteScope } from './venue-seal';

/** What a replay scenario of the simulated venue is: its seed, and the published suite it belongs to, if any. */
export interface SealedScenario {
  seed: number;
  suite?: string;
  /** The one catalogue category the venue lists (a suite-v2 episode), or every category when absent or null. */
  category?: string | null;
}

/** The scope a scenario is sealed under: its suite's (revealed when the suite retires), else the own-seed scope. */
export function scenarioScope(s: SealedScenario): string {
  return s.suite !== undefined ? suiteScope(s.suite) : OWN_REPLAY_SCOPE;
}

/**
 * A replay scenario's venue as every run, playback and check builds it: its seed, speed 1, with information, sealed,
 * listing its category's markets only when it has one.
 */
export function scenarioFeedWith(scopeSecretBytes: Buffer, seed: number, clock: Clock, category: string | null = null): SimulatedFeed {
  return new SimulatedFeed({ seed, speed: 1, information: true, seal: fixedSeal(scopeSecretBytes), category }, clock);
}

/** The scenario's venue under the service's master secret. */
export function scenarioFeed(master: Buffer, s: SealedScenario, clock: Clock): SimulatedFeed {
  return scenarioFeedWith(scopeSecret(master, scenarioScope(s)), s.seed, clock, s.category ?? null);
}
