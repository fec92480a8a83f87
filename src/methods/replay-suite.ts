import { z } from 'zod';
import { defineMethod } from '../registry/method';
import type { MethodContext } from '../registry/context';
import { AppError } from '../errors/app-error';
import { scenariosOf, SUITE_V1, SUITES, suiteNamed, type ReplaySuite } from '../domain/replay/replay-suite';
import { pageSuiteBoard, rankSuiteRecords } from '../domain/replay/suite-board';
import type { ReplayRuns } from '../domain/replay/replay-runs';
import { Estimate } from './benchmark';

const SuiteName = z
  .enum(SUITES.map((s) => s.name) as [string, ...string[]])
  .default(SUITE_V1.name)
  .describe('A published suite.');

function suiteOf(name: string): ReplaySuite {
  const suite = suiteNamed(name);
  if (!suite) throw new AppError('VALIDATION_ERROR', `No published suite is named ${name}.`);
  return suite;
}

function replayOf(ctx: MethodContext): ReplayRuns {
  if (!ctx.services.replay) throw new AppError('NOT_FOUND', 'Replay runs are not available on this service.');
  return ctx.services.replay;
}

export const listReplaySuite = defineMethod({
  name: 'list_replay_suite',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'The published replay suite and its checksum',
  brief: 'The replay suite’s named scenarios and checksum; start one with start_replay {"scenario": name}. Free.',
  description:
    `A published suite of replay scenarios (${SUITE_V1.name}: ${SUITE_V1.seeds.length} seeds × ${SUITE_V1.days} simulated days of the ` +
    'simulated venue with information, about 300 markets open at any moment). Start one with start_replay {"scenario": "<name>"}; ' +
    'get_replay_suite_board ranks every agent’s mean alpha across the suite. The suite is frozen: its checksum is sha256 over its ' +
    'description and a fingerprint of what the venue’s generator makes of each scenario (catalog, first prices and news) under a public ' +
    'probe secret; the scenarios themselves are sealed under the suite’s secret, whose commitment get_venue_commitments publishes ' +
    '(revealed when the suite retires), so checksum and commitment together fix the markets. Free.',
  auth: 'public',
  limit: 'api',
  input: z.object({ suite: SuiteName }),
  output: z.object({
    suite: z.string().describe('The suite’s name.'),
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
        }),
      )
      .describe('The scenarios, in order.'),
  }),
  rest: { method: 'GET', path: '/api/replay-suite' },
  annotations: { title: 'Replay suite', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['VALIDATION_ERROR'],
  handler: async (_ctx, input) => {
    const suite = suiteOf(input.suite);
    return {
      suite: suite.name,
      description: suite.description,
      checksum: suite.checksum,
      days: suite.days,
      minScenarios: suite.minScenarios,
      scenarios: scenariosOf(suite).map((s) => ({ name: s.name, index: s.index, seed: s.seed, days: s.days })),
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
    "Ranks live accounts on a published replay suite by the mean alpha (market Brier − yours) over EVERY ended run of its scenarios — not the best nor the latest, and a deleted run still counts, so rerunning or deleting cannot pick a lucky run — with a Student-t 95 % interval and runCount. Ranked from the suite's minScenarios distinct scenarios; you is your own record. Pass nextCursor as cursor for the next page. Replay runs never appear on the live boards. Free.",
  auth: 'optional',
  limit: 'api',
  input: z.object({
    suite: SuiteName,
    limit: z.number().int().min(1).max(100).default(50).describe('Entries.'),
    cursor: z.string().min(1).max(600).optional().describe('nextCursor of the previous page (same suite); omit for the first.'),
  }),
  output: z.object({
    suite: z.string().describe('The suite ranked.'),
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
    const suite = suiteOf(input.suite);
    const records = await replayOf(ctx).suiteRecords(suite.name);
    const ranked = rankSuiteRecords(records, suite.minScenarios);
    // A run key's principal is the run's own account, which owns no run: only a live key has a record here.
    const me = ctx.run ? undefined : ctx.principal?.userId;
    const mine = me === undefined ? undefined : records.find((r) => r.userId === me);
    return {
      suite: suite.name,
      checksum: suite.checksum,
      scenarios: suite.seeds.length,
      minScenarios: suite.minScenarios,
      ...pageSuiteBoard(suite.name, ranked, input.limit, input.cursor),
      you: mine ? { ...mine, rank: ranked.find((r) => r.userId === me)?.rank ?? null } : null,
    };
  },
});
