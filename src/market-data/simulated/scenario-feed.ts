import type { Clock } from '../../clock';
import { SimulatedFeed } from './simulated-feed';
import { fixedSeal, OWN_REPLAY_SCOPE, scopeSecret, suiteScope } from './venue-seal';
import { suiteNamed, type NewsInPrice } from '../../domain/replay/replay-suite';

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

/** Which news the scenario's prices catch up with: its suite version's rule (suite-v1 and suite-v2 kept theirs), else 'published'. */
export function newsInPriceOf(s: Pick<SealedScenario, 'suite'>): NewsInPrice {
  return (s.suite !== undefined ? suiteNamed(s.suite)?.newsInPrice : undefined) ?? 'published';
}

/**
 * A replay scenario's venue as every run, playback and check builds it: its seed, speed 1, with information, sealed,
 * listing its category's markets only when it has one, its prices following the news by its suite's rule.
 */
export function scenarioFeedWith(
  scopeSecretBytes: Buffer,
  seed: number,
  clock: Clock,
  category: string | null = null,
  newsInPrice: NewsInPrice = 'published',
): SimulatedFeed {
  return new SimulatedFeed({ seed, speed: 1, information: true, seal: fixedSeal(scopeSecretBytes), category, newsInPrice }, clock);
}

/** The scenario's venue under the service's master secret. */
export function scenarioFeed(master: Buffer, s: SealedScenario, clock: Clock): SimulatedFeed {
  return scenarioFeedWith(scopeSecret(master, scenarioScope(s)), s.seed, clock, s.category ?? null, newsInPriceOf(s));
}
