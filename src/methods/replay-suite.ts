import { z } from 'zod';
import { defineMethod } from '../registry/method';
import type { MethodContext } from '../registry/context';
import { AppError } from '../errors/app-error';
import { currentSuite, scenariosOf, SUITE_V3, SUITES, suiteNamed, suiteStatus, type ReplaySuite } from '../domain/replay/replay-suite';
import { suiteScope } from '../market-data/simulated/venue-seal';
import { pageSuiteBoard, rankSuiteRecords } from '../domain/replay/suite-board';
import type { ReplayRuns } from '../domain/replay/replay-runs';
import { Estimate } from './benchmark';

const SuiteName = z
  .enum(SUITES.map((s) => s.name) as [string, ...string[]])
  .optional()
  // The enum names every version (a new one lengthens the tool list by its name): the description need not.
  .describe('A published suite version; default: the current one.');

/** The version asked for, or the current one. */
function suiteOf(ctx: MethodContext, name: string | undefined): ReplaySuite {
  if (name === undefined) return currentSuite(ctx.clock.now().getTime());
  const suite = suiteNamed(name);
  if (!suite) throw new AppError('VALIDATION_ERROR', `No published suite is named ${name}.`);
  return suite;
}

const State = z
  .enum(['current', 'retired'])
  .describe('current: runs of its episodes join its board; retired: its secret is revealed (get_venue_commitments) and its board is read-only.');
const RetiredAt = z.iso.datetime().nullable().describe('When the version retired and its secret was revealed; null while current.');

/** A version's state and retirement, as every answer about it says them (state, not status: the glossary keeps status for markets). */
function stateOf(ctx: MethodContext, suite: ReplaySuite): { state: 'current' | 'retired'; retiredAt: string | null } {
  const state = suiteStatus(suite, ctx.clock.now().getTime());
  return { state, retiredAt: state === 'retired' ? suite.retiredAt : null };
}

function replayOf(ctx: MethodContext): ReplayRuns {
  if (!ctx.services.replay) throw new AppError('NOT_FOUND', 'Replay runs are not available on this service.');
  return ctx.services.replay;
}

export const listReplaySuite = defineMethod({
  name: 'list_replay_suite',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'A published replay suite version: its episodes with their categories, its checksum and state',
  brief:
    'A replay suite version’s named episodes (seed, days, category), checksum and state (current or retired); start one with start_replay {"scenario": name}. Free.',
  description:
    `A published version of the replay suite (current: ${SUITE_V3.name}, ${SUITE_V3.episodes.length} episodes × ${SUITE_V3.days} simulated days of the ` +
    'simulated venue with information, each listing one catalogue category’s markets and news). Start one with start_replay {"scenario": "<name>"}; ' +
    'get_replay_suite_board ranks every agent’s mean alpha across a version. A version is frozen: its checksum is sha256 over its ' +
    'description and a fingerprint of what the venue’s generator makes of each episode (catalog, first prices and news) under a public ' +
    'probe secret; the episodes themselves are sealed under the version’s secret (scope suite|<name>), whose commitment get_venue_commitments publishes, ' +
    'so checksum and commitment together fix the markets. A version retires when a new one is published: its secret is revealed (anyone can then ' +
    'recompute its outcomes and check the commitment: scripts/verify-venue.ts), its board stays readable and new runs of it are refused (SUITE_RETIRED). ' +
    'Without suite: the current version; versions lists them all. Free.',
  auth: 'public',
  limit: 'api',
  input: z.object({ suite: SuiteName }),
  output: z.object({
    suite: z.string().describe('The suite version’s name.'),
    state: State,
    retiredAt: RetiredAt,
    scope: z.string().describe('The sealed scope of its episodes (suite|<name>): its commitment and, once retired, its secret are in get_venue_commitments.'),
    description: z.string().describe('What it replays.'),
    checksum: z.string().describe('sha256 (hex) over the suite’s description and the venue generator’s fingerprint of each scenario (probe secret).'),
    days: z.number().int().min(1).describe('Simulated days of each scenario.'),
    minScenarios: z.number().int().min(1).describe('Scenarios an owner needs on the suite board to be ranked.'),
    scenarios: z
      .array(
        z.object({
          name: z.string().describe('Pass it to start_replay as scenario.'),
          index: z.number().int().min(0).describe('Its place in the suite.'),
          seed: z.number().int().describe('Seed of its simulated venue.'),
          days: z.number().int().min(1).describe('Its window, in simulated days.'),
          category: z
            .string()
            .nullable()
            .describe('The one catalogue category its venue lists (its markets and their news only); null: the whole venue (suite-v1).'),
        }),
      )
      .describe('The episodes, in order.'),
    versions: z
      .array(
        z.object({
          suite: z.string().describe('A published version.'),
          state: State,
          retiredAt: RetiredAt,
          episodes: z.number().int().min(1).describe('Its episodes.'),
        }),
      )
      .describe('Every published version, oldest first.'),
  }),
  rest: { method: 'GET', path: '/api/replay-suite' },
  annotations: { title: 'Replay suite', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['VALIDATION_ERROR'],
  handler: async (ctx, input) => {
    const suite = suiteOf(ctx, input.suite);
    return {
      suite: suite.name,
      ...stateOf(ctx, suite),
      scope: suiteScope(suite.name),
      description: suite.description,
      checksum: suite.checksum,
      days: suite.days,
      minScenarios: suite.minScenarios,
      scenarios: scenariosOf(suite).map((s) => ({ name: s.name, index: s.index, seed: s.seed, days: s.days, category: s.category })),
      versions: SUITES.map((v) => ({ suite: v.name, ...stateOf(ctx, v), episodes: v.episodes.length })),
    };
  },
});

const SuiteEntry = z.object({
  userId: z.string().describe('The live account that ran the scenarios.'),
  displayName: z.string().describe('Public display name.'),
  isAgent: z.boolean().describe('True for an agent.'),
  scenarios: z.number().int().min(0).describe('Distinct scenarios with at least one ended run that has an alpha (what minScenarios counts).'),
  runCount: z.number().int().min(0).describe('Runs counted: every ended run with an alpha, deleted runs included.'),
  meanAlpha: Estimate.describe('Mean alpha over every counted run; n is runCount, the interval a Student-t 95 % interval.'),
  runs: z
    .array(
      z.object({
        scenario: z.string().describe('The scenario.'),
        runId: z.string().describe('The run (it may have been deleted since; its result still counts).'),
        alpha: z.number().nullable().describe('That run’s frozen alpha (null: no stated forecast resolved; the scenario is not counted).'),
        endedAt: z.iso.datetime().describe('When that run ended (wall clock).'),
      }),
    )
    .describe('Every ended run, by scenario then end.'),
});

export const getReplaySuiteBoard = defineMethod({
  name: 'get_replay_suite_board',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'The replay suite board: each agent’s mean alpha across the suite’s scenarios, with its interval',
  brief:
    'Ranks live accounts on a replay suite by mean alpha over every ended run of its scenarios (deleted runs too) with a 95 % interval and the run count; you is your own record. Free.',
  description:
    "Ranks live accounts on a published replay suite by the mean alpha (market Brier − yours) over EVERY ended run of its scenarios — not the best nor the latest, and a deleted run still counts, so rerunning or deleting cannot pick a lucky run — with a Student-t 95 % interval and runCount. Ranked from the suite's minScenarios distinct scenarios; you is your own record. Pass nextCursor as cursor for the next page. Replay runs never appear on the live boards. Each suite version has its own board (suite; default: the current version); a retired version's board stays readable, read-only: its secret is revealed, so no new run joins it. Free.",
  auth: 'optional',
  limit: 'api',
  input: z.object({
    suite: SuiteName,
    limit: z.number().int().min(1).max(50).default(50).describe('Entries.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same suite); omit for the first.'),
  }),
  output: z.object({
    suite: z.string().describe('The suite version ranked.'),
    state: State,
    retiredAt: RetiredAt,
    checksum: z.string().describe('Its checksum (list_replay_suite).'),
    scenarios: z.number().int().min(1).describe('Scenarios in the suite.'),
    minScenarios: z.number().int().min(1).describe('Counted scenarios an account needs to be ranked.'),
    entries: z.array(SuiteEntry.extend({ rank: z.number().int().min(1).describe('1 is best.') })).describe('Best first; ties go to more scenarios.'),
    you: SuiteEntry.extend({ rank: z.number().int().min(1).nullable().describe('Your rank; null when not ranked.') })
      .nullable()
      .describe('Your own suite record when you are signed in with a live key and have ended a run of the suite; null otherwise.'),
    nextCursor: z.string().nullable().describe('Pass as cursor for the next page; null when this is the last page.'),
  }),
  rest: { method: 'GET', path: '/api/replay-suite/board' },
  annotations: { title: 'Replay suite board', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['VALIDATION_ERROR'],
  handler: async (ctx, input) => {
    const suite = suiteOf(ctx, input.suite);
    const records = await replayOf(ctx).suiteRecords(suite.name);
    const ranked = rankSuiteRecords(records, suite.minScenarios);
    // A run key's principal is the run's own account, which owns no run: only a live key has a record here.
    const me = ctx.run ? undefined : ctx.principal?.userId;
    const mine = me === undefined ? undefined : records.find((r) => r.userId === me);
    return {
      suite: suite.name,
      ...stateOf(ctx, suite),
      checksum: suite.checksum,
      scenarios: suite.episodes.length,
      minScenarios: suite.minScenarios,
      ...pageSuiteBoard(suite.name, ranked, input.limit, input.cursor),
      you: mine ? { ...mine, rank: ranked.find((r) => r.userId === me)?.rank ?? null } : null,
    };
  },
});
