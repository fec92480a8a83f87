import { z } from 'zod';
import { defineMethod } from '../registry/method';
import { requirePrincipal, type MethodContext } from '../registry/context';
import { AppError } from '../errors/app-error';
import { toMicro } from '../domain/money/micro';
import { isMirror, type MirrorScenario, type ReplayCaller, type ReplayRecord, type ReplayRuns, type ReplayScenario } from '../domain/replay/replay-runs';
import { scenarioNamed, SUITES } from '../domain/replay/replay-suite';
import { BENCHMARK_METRICS, boardEstimates, type BenchmarkMetric } from '../domain/benchmark/benchmark-record';
import { Estimate } from './benchmark';
import { SpendAmount } from './common-schemas';

const MAX_DAYS = 60;

const RunId = z.string().min(1).max(40).describe('runId, from start_replay.');

const METRICS = Object.keys(BENCHMARK_METRICS) as BenchmarkMetric[];

/**
 * The frozen record as get_replay shows it: the boards' figures with their n and intervals. The whole record (calibration
 * table, Murphy terms, categories, risk and timing in full) is get_benchmark_record called with the run's key (season all),
 * which end_replay froze with it; repeating its schema here would add some 35 KB to every MCP tools/list.
 */
const ReplayRecordSummary = z
  .object({
    venue: z.literal('replay').describe('Labels the record: scored on a replay run’s venue, not on the live one.'),
    source: z.enum(['simulated', 'mirror']).describe('The replayed venue: simulated (with information), or mirror (recorded real Polymarket markets).'),
    leakageWarning: z.string().nullable().describe('For a mirror run: the outcomes are public, so the record may measure recall, not skill; else null.'),
    season: z.literal('all').describe('The season scored: the whole run.'),
    resolvedMarkets: z.number().int().min(0).describe('Resolved, non-void markets the run’s account stated a forecast on (plain buys do not count).'),
    computedAt: z.iso.datetime().nullable().describe('When it was scored, on the run’s clock (null: nothing of the account has resolved).'),
    figures: z
      .object(
        Object.fromEntries(METRICS.map((m) => [m, Estimate.describe(`The ${m} figure, as get_benchmark_leaderboard ranks it.`)])) as Record<
          BenchmarkMetric,
          typeof Estimate
        >,
      )
      .describe('alpha, brier, log_score, clv, sharpe, return and max_drawdown, each with n and a 95 % interval.'),
  })
  .describe('The run account’s benchmark record, frozen by end_replay: its board figures. The whole record: get_benchmark_record with the run’s key.');

function summaryOf(record: ReplayRecord): z.input<typeof ReplayRecordSummary> {
  return {
    venue: 'replay',
    source: record.source ?? 'simulated',
    leakageWarning: record.leakageWarning ?? null,
    season: 'all',
    resolvedMarkets: record.resolvedMarkets,
    computedAt: record.computedAt,
    figures: boardEstimates(record),
  };
}

/** A run without its record: what start, advance and end answer (the record's schema is large, and every tool repeats it). */
const ReplayState = z.object({
  runId: z.string().describe('The run’s id.'),
  state: z.enum(['running', 'ended']).describe('running, or ended (end_replay: frozen).'),
  scenario: z
    .union([
      z.object({
        seed: z.number().int().describe('Seed of the run’s simulated venue.'),
        days: z.number().int().min(1).max(MAX_DAYS).describe('Length of the run’s window, in simulated days.'),
        name: z.string().nullable().describe('The suite scenario it replays (suite-v3/07), or null.'),
        suite: z.string().nullable().describe('Its suite (suite-v3; its runs count on get_replay_suite_board), or null.'),
        category: z.string().nullable().describe('The one category the run lists (a suite-v3 episode); null: all.'),
      }),
      z.object({
        source: z.literal('mirror').describe('The recorded Polymarket mirror.'),
        from: z.iso.datetime().describe('Start of the replayed window.'),
        to: z.iso.datetime().describe('End of the replayed window.'),
      }),
    ])
    .describe('What the run replays: the same scenario and the same calls give the same record.'),
  source: z
    .enum(['simulated', 'mirror'])
    .describe('simulated: the simulated venue with information; mirror: real Polymarket markets as the mirror recorded them.'),
  leakageWarning: z
    .string()
    .nullable()
    .describe(
      'For a mirror run: how these markets ended is public (and likely known to a language model), so its record measures recall, not skill. Null otherwise.',
    ),
  mode: z.enum(['step', 'speed']).describe('step: the clock moves only by advance_replay; speed: it runs at speed × the wall clock.'),
  speed: z.number().positive().nullable().describe('Simulated seconds per wall second (speed mode); null in step mode.'),
  startAt: z.iso.datetime().describe('Simulated start of the window.'),
  endAt: z.iso.datetime().describe('Simulated end of the window: the clock never passes it.'),
  clock: z.iso.datetime().describe('The run’s simulated now: what every call with the run’s key sees as the time.'),
  accountId: z.string().describe('The run’s own account (it exists only inside the run).'),
  createdAt: z.iso.datetime().describe('When the run was started (wall clock).'),
  endedAt: z.iso.datetime().nullable().describe('When end_replay froze it (wall clock); null while running.'),
});

const ReplayView = ReplayState.extend({
  record: ReplayRecordSummary.nullable().describe('The frozen benchmark record once ended; null while running.'),
});

/** The run as start, advance and end answer it: get_replay alone carries the record. */
function stateOf<T extends { record: unknown; scenario: ReplayScenario }>(view: T): Omit<T, 'record' | 'scenario'> & { scenario: ScenarioOut } {
  const { record: _record, scenario, ...state } = view;
  return { ...state, scenario: scenarioOut(scenario) };
}

type ScenarioOut = { seed: number; days: number; name: string | null; suite: string | null; category: string | null } | MirrorScenario;

function scenarioOut(s: ReplayScenario): ScenarioOut {
  if (isMirror(s)) return s;
  return { seed: s.seed, days: s.days, name: s.name ?? null, suite: s.suite ?? null, category: s.category ?? null };
}

const SCENARIO_NAME = /^[a-z0-9-]{1,40}\/\d{2}$/;

/** The scenario start_replay was given: a published one by name, or a seed and days; anything else is refused. */
function scenarioOf(input: { scenario?: string; source: 'simulated' | 'mirror'; seed?: number; days?: number; from?: string; to?: string }): ReplayScenario {
  if (input.source === 'mirror') {
    if (input.from === undefined || input.to === undefined || input.seed !== undefined || input.days !== undefined || input.scenario !== undefined) {
      throw new AppError('VALIDATION_ERROR', 'A mirror replay takes from and to (and no scenario, seed or days).', {
        hint: 'For example {"source": "mirror", "from": "2026-11-01T00:00:00Z", "to": "2026-11-08T00:00:00Z"}.',
      });
    }
    return { source: 'mirror', from: new Date(input.from).toISOString(), to: new Date(input.to).toISOString() };
  }
  if (input.from !== undefined || input.to !== undefined) {
    throw new AppError('VALIDATION_ERROR', 'from and to are a mirror replay’s window: give source "mirror" with them.', {
      hint: 'For example {"source": "mirror", "from": "2026-11-01T00:00:00Z", "to": "2026-11-08T00:00:00Z"}.',
    });
  }
  const suites = SUITES.map((x) => x.name).join(', ');
  if (input.scenario !== undefined) {
    if (input.seed !== undefined || input.days !== undefined) {
      throw new AppError('VALIDATION_ERROR', 'Give either scenario (a published scenario’s name) or seed and days, not both.', {
        hint: 'For example {"scenario": "suite-v3/07"} or {"seed": 7, "days": 30}.',
      });
    }
    const named = scenarioNamed(input.scenario);
    if (!named) {
      throw new AppError('VALIDATION_ERROR', `No published scenario is named ${input.scenario}.`, {
        hint: `list_replay_suite lists a suite’s scenarios (suites: ${suites}).`,
      });
    }
    // A whole-venue scenario (suite-v1) is stored as it always was: no category key.
    return { seed: named.seed, days: named.days, name: named.name, suite: named.suite, ...(named.category === null ? {} : { category: named.category }) };
  }
  if (input.seed === undefined || input.days === undefined) {
    throw new AppError('VALIDATION_ERROR', 'Give seed and days, or scenario (a published scenario’s name).', {
      hint: 'For example {"seed": 7, "days": 30} or {"scenario": "suite-v3/07"}.',
    });
  }
  return { seed: input.seed, days: input.days };
}

const NOT_YOURS = 'NOT_FOUND (404, not your run)';
const ENDED = 'REPLAY_ENDED (409)';

function replayOf(ctx: MethodContext): ReplayRuns {
  if (!ctx.services.replay) throw new AppError('NOT_FOUND', 'Replay runs are not available on this service.');
  return ctx.services.replay;
}

function callerOf(ctx: MethodContext): ReplayCaller {
  return { userId: requirePrincipal(ctx).userId, ...(ctx.run ? { runId: ctx.run.id } : {}) };
}

export const startReplay = defineMethod({
  name: 'start_replay',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'Start a replay run: a simulated month of markets with news on its own clock, and a key that trades only there',
  brief:
    'Starts a replay run: a simulated market scenario with news (seed and days, or a suite scenario) on its own clock, stepped or at a speed, or a past Polymarket window. Returns a run apiKey that trades only there. Takes seconds; counts against the registration rate limit.',
  description:
    'Starts a replay run: a simulated-venue scenario with news (seed and days, or a published suite scenario from list_replay_suite) on its own clock, stepped (mode "step": advance_replay moves it) or at a speed. The run has its own account and returns its apiKey: calls with that key see only the run. end_replay settles it and freezes its benchmark record; the same scenario and calls give the same record. Call it with your live key; it takes seconds and counts against the registration rate limit. source "mirror" with a past window (from, to) replays recorded Polymarket markets instead (no news; outcomes are public: a leakageWarning). Errors: VALIDATION_ERROR (400); SUITE_RETIRED (409) for an episode of a retired suite version (its secret is revealed; its board is read-only).',
  auth: 'key',
  limit: 'register',
  input: z.object({
    scenario: z
      .string()
      .regex(SCENARIO_NAME)
      .optional()
      .describe('A published scenario by name (suite-v3/07: list_replay_suite), instead of seed and days (source simulated).'),
    source: z
      .enum(['simulated', 'mirror'])
      .default('simulated')
      .describe('simulated (default; seed and days) or mirror (a past window of recorded Polymarket markets; from, to).'),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2_147_483_647)
      .optional()
      .describe('Seed of the simulated venue: the markets, their news and outcomes (source simulated).'),
    days: z.number().int().min(1).max(MAX_DAYS).optional().describe(`Window length in simulated days, 1..${MAX_DAYS} (source simulated).`),
    from: z.iso.datetime().optional().describe('Start of the mirror window (source mirror).'),
    to: z.iso.datetime().optional().describe(`End of the mirror window, not in the future, at most ${MAX_DAYS} days after from (source mirror).`),
    mode: z
      .union([z.literal('step'), z.object({ speed: z.number().positive().max(1_000_000).describe('Simulated seconds per wall second.') })])
      .default('step')
      .describe('"step" (default): the clock moves only by advance_replay; {speed}: it runs at that multiple of the wall clock.'),
    bankroll: SpendAmount.optional().describe('Starting dollars of the run’s account (default 1000).'),
  }),
  output: ReplayState.extend({
    apiKey: z.string().describe('The run’s key (rpl_…): send it as Authorization: Bearer to act inside the run. Shown once.'),
  }),
  rest: { method: 'POST', path: '/api/replays', status: 201 },
  annotations: { title: 'Start replay', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['FORBIDDEN', 'VALIDATION_ERROR', 'SUITE_RETIRED'],
  handler: async (ctx, input) => {
    const mode = input.mode === 'step' ? { kind: 'step' as const } : { kind: 'speed' as const, speed: input.mode.speed };
    const started = await replayOf(ctx).start(callerOf(ctx), {
      scenario: scenarioOf(input),
      mode,
      ...(input.bankroll !== undefined ? { bankrollMicro: toMicro(input.bankroll) } : {}),
    });
    return stateOf(started);
  },
});

export const getReplay = defineMethod({
  name: 'get_replay',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'Read a replay run: its clock, state and, once ended, its frozen record',
  brief:
    "A replay run's scenario, mode, simulated clock and state; once ended, its frozen benchmark record. Call with the key that started it or the run's key. Free.",
  description:
    'A replay run’s scenario, mode, simulated clock and state; once ended, the frozen benchmark record (labelled venue "replay"). ' +
    `Call it with the live key that started the run or with the run’s own key. Free. Errors: ${NOT_YOURS}.`,
  auth: 'key',
  limit: 'api',
  input: z.object({ runId: RunId }),
  output: ReplayView,
  rest: { method: 'GET', path: '/api/replays/:runId' },
  annotations: { title: 'Replay run', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: ['NOT_FOUND'],
  handler: async (ctx, input) => {
    const view = await replayOf(ctx).get(callerOf(ctx), input.runId);
    return { ...view, scenario: scenarioOut(view.scenario), record: view.record ? summaryOf(view.record) : null };
  },
});

/** list_replays shows at most this many runs, newest first. */
const MAX_LISTED = 100;

export const listReplays = defineMethod({
  name: 'list_replays',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'List your replay runs, newest first: each run’s scenario, clock and state',
  brief: `Your replay runs, newest first (at most ${MAX_LISTED}): each one's runId, scenario, mode, simulated clock and state (running or ended), to resume or end one. Free.`,
  description:
    `Your replay runs, newest first (at most ${MAX_LISTED}; delete_replay removes one): each one's runId, scenario, mode, simulated clock and state, ` +
    'as start_replay and get_replay describe them, without keys or records (get_replay reads a run’s frozen record). With a run’s key, only that run. Free.',
  auth: 'key',
  limit: 'api',
  input: z.object({}),
  output: z.object({ runs: z.array(ReplayState).describe('The runs, newest first.') }),
  rest: { method: 'GET', path: '/api/replays' },
  annotations: { title: 'Replay runs', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  errors: [],
  handler: async (ctx) => ({ runs: (await replayOf(ctx).list(callerOf(ctx), MAX_LISTED)).map(stateOf) }),
});

export const advanceReplay = defineMethod({
  name: 'advance_replay',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'Move a stepped replay run’s clock: by seconds, or to the next news item, resolution or the end',
  brief:
    "Moves a stepped replay run's clock forward: by seconds (by), or to the next news item, resolution or the end (to); exactly one. Prices move, markets resolve and orders fill on the way, about a second per simulated day.",
  description: `Moves a stepped run's clock forward, never past the window's end: by seconds (by), or to the next news item, the next resolution or the end (to); exactly one of the two. The venue syncs at least once per simulated day on the way (prices move, markets resolve, orders fill), about a second per simulated day. Call it with your live key or the run's key. Errors: VALIDATION_ERROR (400); ${NOT_YOURS}; ${ENDED}.`,
  auth: 'key',
  limit: 'api',
  input: z.object({
    runId: RunId,
    by: z
      .number()
      .int()
      .min(1)
      .max(MAX_DAYS * 86_400)
      .optional()
      .describe('Seconds to move the clock by.'),
    to: z.enum(['next_news', 'next_resolution', 'end']).optional().describe('Or where to move it: the next news item, the next resolution, or the end.'),
  }),
  output: ReplayState,
  rest: { method: 'POST', path: '/api/replays/:runId/advance' },
  annotations: { title: 'Advance replay', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND', 'REPLAY_ENDED'],
  handler: async (ctx, input) => {
    if ((input.by === undefined) === (input.to === undefined)) {
      throw new AppError('VALIDATION_ERROR', 'Give exactly one of by (seconds) and to (next_news, next_resolution or end).', {
        hint: 'For example {"to": "next_news"} or {"by": 3600}.',
      });
    }
    return stateOf(await replayOf(ctx).advance(callerOf(ctx), input.runId, input.by !== undefined ? { by: input.by } : { to: input.to! }));
  },
});

export const endReplay = defineMethod({
  name: 'end_replay',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'End a replay run: settle what is left and freeze its benchmark record',
  brief:
    "Ends a replay run: its clock jumps to the window's end, markets settle, its benchmark record is frozen (read it with get_replay) and the run becomes read-only.",
  description: `Ends a replay run: its clock goes to the window's end (markets resolve and settle), its account's benchmark record is frozen (read it with get_replay), and the run is read-only from then on. Call it with your live key or the run's key. Errors: ${NOT_YOURS}; ${ENDED}.`,
  auth: 'key',
  limit: 'api',
  input: z.object({ runId: RunId }),
  output: ReplayState,
  rest: { method: 'POST', path: '/api/replays/:runId/end' },
  annotations: { title: 'End replay', readOnlyHint: false, idempotentHint: false, openWorldHint: false },
  errors: ['NOT_FOUND', 'REPLAY_ENDED'],
  handler: async (ctx, input) => stateOf(await replayOf(ctx).end(callerOf(ctx), input.runId)),
});

export const deleteReplay = defineMethod({
  name: 'delete_replay',
  toolset: 'replay',
  area: 'Forecasting',
  summary: 'Delete a replay run with its data: its database, its record and its key',
  brief: 'Deletes a replay run and everything in it (account, trades, forecasts, record, key). Only the live key that started it may. Cannot be undone.',
  description:
    'Deletes a replay run, running or ended, with everything it holds: its database (its account, trades, forecasts and mirror), ' +
    'its row and frozen record (it leaves get_replay_suite_board) and its key, which stops working at once. Only the live key that ' +
    'started the run may (a run key is refused with FORBIDDEN). Cannot be undone. Errors: FORBIDDEN (403) for a run key; NOT_FOUND ' +
    '(404) for a run that is not yours, or one already deleted (a second delete_replay).',
  auth: 'key',
  limit: 'api',
  input: z.object({ runId: RunId }),
  output: z.object({ runId: z.string().describe('The run deleted.'), deleted: z.literal(true).describe('Always true.') }),
  rest: { method: 'DELETE', path: '/api/replays/:runId' },
  annotations: { title: 'Delete replay', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  errors: ['FORBIDDEN', 'NOT_FOUND'],
  handler: async (ctx, input) => {
    await replayOf(ctx).delete(callerOf(ctx), input.runId);
    return { runId: input.runId, deleted: true as const };
  },
});
