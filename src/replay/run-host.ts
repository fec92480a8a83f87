import { createHash, randomBytes } from 'node:crypto';
import { ConcurrencyGate } from '../db/concurrency-gate';
import type { Database } from '../db/database';
import type { RunDatabases } from '../db/run-database';
import { AppError } from '../errors/app-error';
import { attachSyncWork, createServices, type Services } from '../services';
import type { Config } from '../config';
import type { CallInfo } from '../auth/caller';
import { hashSecret } from '../auth/api-keys';
import { createRunRateLimiter } from '../limits/run-budget';
import type { RateLimiter } from '../limits/rate-limiter';
import { accountKeyOf, runKeyOf } from '../auth/run-keys';
import type { RunScope, RunScopes } from '../registry/method-services';
import { SimulatedFeed } from '../market-data/simulated/simulated-feed';
import { scenarioFeed } from '../market-data/simulated/scenario-feed';
import { masterSecretOf } from '../market-data/simulated/venue-secret-store';
import { ReplayStore, type ReplayRunRow } from '../domain/replay/replay-store';
import {
  REPLAY_START_MS,
  isMirror,
  MIRROR_LEAKAGE_WARNING,
  type AdvanceTarget,
  type ReplayCaller,
  type ReplayMode,
  type ReplayRuns,
  type ReplayScenario,
  type ReplayView,
} from '../domain/replay/replay-runs';
import type { MarketFeed } from '../market-data/feed';
import { MirrorReplayFeed } from '../market-data/mirror-history/mirror-replay-feed';
import { MirrorHistoryStore } from '../market-data/mirror-history/mirror-history-store';
import { RunClock } from './run-clock';
import { suiteRecords, type SuiteRecord } from '../domain/replay/suite-board';
import { assertSuiteOpen, suiteOpen } from '../domain/replay/replay-suite';

const DAY_MS = 86_400_000;
export { REPLAY_START_MS } from '../domain/replay/replay-runs';
const RUN_ID = /^[0-9a-f]{12}$/;
/** The longest window of either source, in days (the simulated one is bounded by start_replay's input). */
const MAX_WINDOW_DAYS = 60;

interface RunHandle {
  id: string;
  services: Services;
  clock: RunClock;
  db: Database;
  /** Advances, syncs and the end of one run, one after the other. */
  queue: Promise<unknown>;
  /** The simulated time of the run's last sync. */
  lastSyncMs: number;
}

/**
 * Replay runs (issue 35 item 2). Each run is its own service graph, built by createServices on its own database
 * (src/db/run-database.ts) with its own clock and a simulated venue with information of the scenario's seed: a call with
 * the run's key is dispatched to that graph (runScoped in src/registry/invoke.ts), so it can only see and trade the run's
 * venue, and the run's account is never on the live boards. After every move of a run's clock its market sync runs, with
 * the same after-sync work as live (attachSyncWork): resolutions, settlement, snapshots and benchmark records follow the
 * run's clock. end_replay freezes the account's benchmark record, scored by the live benchmark's code, labelled replay.
 */
export class RunHost implements ReplayRuns, RunScopes {
  private readonly handles = new Map<string, Promise<RunHandle>>();
  /** The run being built, if any: the next start waits for it (start). */
  private readonly building = new ConcurrencyGate(1);
  /**
   * The runs' heavy work, one piece at a time across every run, as builds are. A sync rewrites every market of the run's
   * venue (~300) with their tokens and snapshots, and an end scores the account's whole record: ten ends at once on
   * PostgreSQL outran the statement deadline (503) in CI, and again once only their syncs were queued; one after
   * another, each has the cores in turn. What runs in it must not itself wait on it.
   */
  private readonly heavy = new ConcurrencyGate(1);
  private readonly store: ReplayStore;
  /** Every run's calls count here, on a budget of their own (src/limits/run-budget.ts), never against the live limits. */
  private runLimiter: RateLimiter | undefined;

  constructor(
    private readonly live: Services,
    private readonly dbs: RunDatabases,
  ) {
    this.store = new ReplayStore(live.db);
  }

  async start(owner: ReplayCaller, input: { scenario: ReplayScenario; mode: ReplayMode; bankrollMicro?: bigint }): Promise<ReplayView & { apiKey: string }> {
    if (owner.runId) {
      throw new AppError('FORBIDDEN', 'A replay run’s key cannot start a run.', { hint: 'Call start_replay with your live API key.' });
    }
    const wallNow = this.live.clock.now();
    if (!isMirror(input.scenario)) assertSuiteOpen(input.scenario.suite, wallNow.getTime());
    const id = randomBytes(6).toString('hex');
    const { startMs, endMs } = this.windowOf(input.scenario, wallNow.getTime());
    // A mirror run's records are read before anything is built: a window with none is refused and leaves nothing behind.
    const clock = new RunClock(input.mode, startMs, endMs, startMs, wallNow.getTime(), this.live.clock);
    const mirror = isMirror(input.scenario) ? await this.mirrorFeed(clock) : undefined;
    if (mirror && mirror.marketCount === 0) {
      throw new AppError('VALIDATION_ERROR', 'The mirror recorded no markets in that window.', {
        hint: 'Pick a window the mirror was running in (MARKET_FEED=polymarket records its history for MIRROR_HISTORY_DAYS days).',
      });
    }
    // Runs are built one at a time: a run's database (a schema and every migration) and its first sync (~300 markets) are
    // the heaviest work the service does, and ten built at once on PostgreSQL outran the statement deadline (503).
    return this.building.run(() => this.buildRun(id, owner, input, clock, wallNow, mirror));
  }

  /** Builds a started run: its database, account and first sync, then its row; nothing is left of it on failure. */
  private async buildRun(
    id: string,
    owner: ReplayCaller,
    input: { scenario: ReplayScenario; mode: ReplayMode; bankrollMicro?: bigint },
    clock: RunClock,
    wallNow: Date,
    mirror: MirrorReplayFeed | undefined,
  ): Promise<ReplayView & { apiKey: string }> {
    const { startMs, endMs } = clock;
    const db = await this.dbs.open(id);
    try {
      const handle = this.build(id, db, clock, input.scenario, mirror);
      const account = await handle.services.accounts.register(
        {
          email: 'replay-agent@replay.invalid',
          password: randomBytes(16).toString('hex'),
          displayName: 'Replay agent',
          isAgent: true,
          agentDescription: `Replay run ${id}`,
          id: accountIdOf(input.scenario),
          startingBalanceMicro: input.bankrollMicro,
        },
        clock.now(),
      );
      await this.syncNow(handle);
      const apiKey = runKeyOf(id, account.apiKey!);
      const row = {
        id,
        owner_id: owner.userId,
        scenario: input.scenario,
        mode: input.mode.kind,
        speed: input.mode.kind === 'speed' ? input.mode.speed : null,
        start_at: new Date(startMs),
        end_at: new Date(endMs),
        sim_now: new Date(startMs),
        wall_started_at: wallNow,
        account_id: account.id,
        created_at: wallNow,
      };
      await this.store.insert({ ...row, key_hash: hashSecret(apiKey) });
      this.handles.set(id, Promise.resolve(handle));
      return { ...this.view({ ...row, state: 'running', record: null, ended_at: null }, handle), apiKey };
    } catch (err) {
      await this.dbs.drop(id, db).catch(() => {});
      throw err;
    }
  }

  async get(caller: ReplayCaller, runId: string): Promise<ReplayView> {
    const row = await this.authorize(caller, runId);
    return this.view(row, row.state === 'running' ? await this.handleOf(row) : undefined);
  }

  async list(caller: ReplayCaller, limit: number): Promise<ReplayView[]> {
    if (caller.runId !== undefined) return [await this.get(caller, caller.runId)];
    const rows = await this.store.byOwner(caller.userId, limit);
    // A running run's clock is its loaded handle's (a speed run moves by itself); a run not loaded in this process is
    // shown at its stored clock rather than loaded only to be listed.
    return Promise.all(
      rows.map(async (row) => {
        const loaded = row.state === 'running' ? this.handles.get(row.id) : undefined;
        return this.view(row, loaded ? await loaded.catch(() => undefined) : undefined);
      }),
    );
  }

  async advance(caller: ReplayCaller, runId: string, target: AdvanceTarget): Promise<ReplayView> {
    const row = await this.authorize(caller, runId);
    if (row.state === 'ended') throw ended(runId);
    if (row.mode !== 'step') {
      throw new AppError('VALIDATION_ERROR', 'advance_replay moves only a stepped run; this run’s clock follows the wall clock at its speed.', {
        hint: 'Start the run with mode "step" to move its clock yourself.',
      });
    }
    const h = await this.handleOf(row);
    return this.exclusive(h, async () => {
      const fresh = await this.running(runId);
      const now = h.clock.nowMs();
      await this.moveTo(h, Math.min(h.clock.endMs, this.targetOf(h, now, target)));
      await this.store.setClock(runId, h.clock.now());
      return this.view(fresh, h);
    });
  }

  async end(caller: ReplayCaller, runId: string): Promise<ReplayView> {
    const row = await this.authorize(caller, runId);
    if (row.state === 'ended') throw ended(runId);
    const h = await this.handleOf(row);
    return this.exclusive(h, async () => {
      await this.running(runId);
      // What is left settles: the clock goes to the window's end (a day at a time, as advance does) and the venue syncs there.
      if (row.mode === 'step') await this.moveTo(h, h.clock.endMs);
      h.clock.freeze();
      if (h.lastSyncMs < h.clock.endMs) await this.syncNow(h);
      // The record is scored whole from the run's books at the end, by the live benchmark's folder and read as live.
      const now = h.clock.now();
      const scored = await this.heavy.run(async () => {
        await h.services.benchmarkFolder.requeue(row.account_id, 'all');
        await h.services.benchmarkFolder.runOnce(now);
        return h.services.benchmark.record(row.account_id, 'all');
      });
      const mirror = isMirror(row.scenario);
      const record = {
        ...scored,
        venue: 'replay' as const,
        source: mirror ? ('mirror' as const) : ('simulated' as const),
        leakageWarning: mirror ? MIRROR_LEAKAGE_WARNING : null,
      };
      const at = this.live.clock.now();
      // A run of a version that retired while it ran ends as usual but stays off the board: the secret was revealed meanwhile.
      const suite = isMirror(row.scenario) ? undefined : row.scenario.suite;
      const done = await this.store.end(runId, now, record, at, suite === undefined || suiteOpen(suite, at.getTime()));
      if (!done) throw ended(runId);
      return this.view(done, h);
    });
  }

  async scopeOf(call: CallInfo): Promise<RunScope | null> {
    const bearer = call.credentials.bearer;
    const accountKey = bearer === undefined ? null : accountKeyOf(bearer);
    if (!bearer || !accountKey) return null;
    const row = await this.store.byKeyHash(hashSecret(bearer));
    if (!row) {
      throw new AppError('UNAUTHORIZED', 'This replay key names no run.', {
        hint: 'Use the apiKey start_replay returned for the run, or start a run with your live key.',
      });
    }
    const h = await this.handleOf(row);
    if (row.state === 'ended') h.clock.freeze();
    // Another process may have advanced the run: its clock never goes back.
    else if (row.mode === 'step' && row.sim_now.getTime() > h.clock.nowMs()) h.clock.set(row.sim_now.getTime());
    else if (row.mode === 'speed') await this.catchUp(h);
    return {
      runId: row.id,
      services: h.services,
      clock: h.clock,
      call: { ...call, credentials: { ...call.credentials, bearer: accountKey } },
      ended: row.state === 'ended',
    };
  }

  /**
   * Deletes a run with its data (issue 35: a run's data can be deleted with it). Its row goes first, so from that moment
   * its key names no run and no new call reaches it; then what the run was doing finishes, its services stop and its
   * database is dropped (the schema on PostgreSQL; the in-memory instance on PGlite). Its result stays on the suite board (suite_results).
   */
  async delete(caller: ReplayCaller, runId: string): Promise<void> {
    if (caller.runId) {
      throw new AppError('FORBIDDEN', 'A replay run’s key cannot delete a run.', { hint: 'Call delete_replay with the live key that started the run.' });
    }
    await this.authorize(caller, runId);
    // Two deletes at once: only the one that removed the row goes on.
    if (!(await this.store.delete(runId))) throw new AppError('NOT_FOUND', `No replay run ${runId} of yours: it was deleted.`);
    const p = this.handles.get(runId);
    this.handles.delete(runId);
    const h = p ? await p.catch(() => undefined) : undefined;
    if (h) await this.stop(h);
    await this.dbs.drop(runId, h?.db);
  }

  async suiteRecords(suite: string): Promise<SuiteRecord[]> {
    return suiteRecords(await this.store.endedSuiteRuns(suite));
  }

  /** Closes every run's database this process holds (at shutdown); a run on PostgreSQL keeps its schema. */
  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    for (const p of handles) {
      const h = await p.catch(() => undefined);
      if (!h) continue;
      await this.stop(h);
      await h.db.close();
    }
    await this.runLimiter?.close();
    this.runLimiter = undefined;
  }

  /** Lets what the run is doing finish and stops its services (its database stays open). */
  private async stop(h: RunHandle): Promise<void> {
    await h.queue.catch(() => {});
    await h.services.eventFeed.stop();
    await h.services.priceBroadcast.stop();
    await h.services.marketSync.stop();
    await h.services.priceChanges.idle();
    await h.services.idempotency.close();
  }

  /** The run's window on its clock: the simulated venue's from REPLAY_START_MS, the mirror's as asked (and checked). */
  private windowOf(scenario: ReplayScenario, wallNowMs: number): { startMs: number; endMs: number } {
    if (!isMirror(scenario)) return { startMs: REPLAY_START_MS, endMs: REPLAY_START_MS + scenario.days * DAY_MS };
    const startMs = Date.parse(scenario.from);
    const endMs = Date.parse(scenario.to);
    const problem =
      !Number.isFinite(startMs) || !Number.isFinite(endMs)
        ? 'from and to must be ISO times'
        : endMs <= startMs
          ? 'to must be after from'
          : endMs > wallNowMs
            ? 'to must not be in the future: a mirror replays what was recorded'
            : endMs - startMs > MAX_WINDOW_DAYS * DAY_MS
              ? `the window must be at most ${MAX_WINDOW_DAYS} days`
              : null;
    if (problem)
      throw new AppError('VALIDATION_ERROR', `A mirror replay's window: ${problem}.`, {
        hint: 'For example {"source": "mirror", "from": "2026-11-01T00:00:00Z", "to": "2026-11-08T00:00:00Z"}.',
      });
    return { startMs, endMs };
  }

  /** The recorded mirror's window, read from the live database's history, as a venue on the run's clock. */
  private async mirrorFeed(clock: RunClock): Promise<MirrorReplayFeed> {
    const recorded = await new MirrorHistoryStore(this.live.db).window(new Date(clock.startMs), new Date(clock.endMs));
    return new MirrorReplayFeed(recorded, clock.startMs, clock);
  }

  private build(id: string, db: Database, clock: RunClock, scenario: ReplayScenario, mirror?: MarketFeed): RunHandle {
    // A simulated scenario's venue is sealed under its suite's secret (or the own-seed one), not the live seasons'.
    const feed = mirror ?? (isMirror(scenario) ? undefined : scenarioFeed(masterSecretOf(this.live.config), scenario, clock));
    const config: Config = {
      ...this.live.config,
      MARKET_FEED: 'simulated',
      SIM_SEED: isMirror(scenario) ? 0 : scenario.seed,
      SIM_SPEED: 1,
      SIM_INFORMATION: true,
      REFERENCE_FORECASTERS: false,
      // A run records nothing of its own: its venue is the record (or the simulation).
      MIRROR_HISTORY_DAYS: 0,
    };
    const services = createServices({
      config,
      db,
      log: this.live.log.child({ replayRun: id }),
      clock,
      registry: this.live.registry,
      limiter: (this.runLimiter ??= createRunRateLimiter(this.live.config, this.live.log)),
      ...(feed ? { feed } : {}),
    });
    attachSyncWork(services);
    // The run's account events wake its own streams: its database's announcements (a schema's own channel on PostgreSQL).
    services.eventFeed.listenOnDemand((channel, onPayload, onResumed) => db.listen(channel, onPayload, onResumed));
    services.replay = this;
    const h: RunHandle = { id, services, clock, db, queue: Promise.resolve(), lastSyncMs: -Infinity };
    // So do the prices its syncs store and the quotes it reads (stream_prices with the run's key), at the run's clock.
    services.priceBroadcast.listenOnDemand(async (channel, onPayload, onResumed) => {
      const stopListening = await db.listen(channel, onPayload, onResumed);
      const stopPacing = clock.speed === null ? () => {} : this.paceWhileStreamed(h);
      return async () => {
        stopPacing();
        await stopListening();
      };
    });
    return h;
  }

  /**
   * A run at a speed syncs when a call with its key comes (catchUp); its price streams need none: while one is open, the
   * run catches up each wall second as a call would, so its prices move with its clock (never past it: a sync lists the
   * venue at the clock's now). Returns the stop.
   */
  private paceWhileStreamed(h: RunHandle): () => void {
    const pace = async () => {
      if (!h.services.priceBroadcast.subscribed || h.clock.ended) return;
      // As scopeOf reads it: a run ended (or deleted) by another process syncs no more.
      const row = await this.store.byId(h.id);
      if (!row || row.state === 'ended') return h.clock.freeze();
      await this.catchUp(h);
    };
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      pace()
        .catch((err) => h.services.log.warn('a streamed replay run’s sync failed', { error: err instanceof Error ? err.message : String(err) }))
        .finally(() => (busy = false));
    }, 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  private handleOf(row: ReplayRunRow): Promise<RunHandle> {
    let p = this.handles.get(row.id);
    if (!p) {
      // A run on the embedded database lived in this process's memory: gone with the process that held it.
      if (!this.live.config.DATABASE_URL) {
        throw new AppError('NOT_FOUND', `Replay run ${row.id}'s data is gone: on the embedded database a run lives in memory and ends with the process.`, {
          hint: 'Start a new run with start_replay.',
        });
      }
      p = this.reopen(row);
      this.handles.set(row.id, p);
      p.catch(() => this.handles.delete(row.id));
    }
    return p;
  }

  private async reopen(row: ReplayRunRow): Promise<RunHandle> {
    const db = await this.dbs.open(row.id);
    const mode: ReplayMode = row.mode === 'speed' ? { kind: 'speed', speed: row.speed! } : { kind: 'step' };
    const clock = new RunClock(
      mode,
      row.start_at.getTime(),
      row.end_at.getTime(),
      row.sim_now.getTime(),
      row.wall_started_at.getTime(),
      this.live.clock,
      row.state === 'ended',
    );
    const feed = isMirror(row.scenario) ? await this.mirrorFeed(clock) : undefined;
    const h = this.build(row.id, db, clock, row.scenario, feed);
    h.lastSyncMs = row.sim_now.getTime();
    return h;
  }

  private async authorize(caller: ReplayCaller, runId: string): Promise<ReplayRunRow> {
    const row = RUN_ID.test(runId) ? await this.store.byId(runId) : undefined;
    // A run key reaches only its own run; a live key only the runs it started. Anything else looks like no run at all.
    const mine = row !== undefined && (caller.runId !== undefined ? caller.runId === row.id : caller.userId === row.owner_id);
    if (!row || !mine) throw new AppError('NOT_FOUND', `No replay run ${runId} of yours.`, { hint: 'Use the runId start_replay returned.' });
    return row;
  }

  /** The run's row, read again inside its queue: an end that ran meanwhile refuses what waited behind it. */
  private async running(runId: string): Promise<ReplayRunRow> {
    const row = await this.store.byId(runId);
    if (!row || row.state === 'ended') throw ended(runId);
    return row;
  }

  private targetOf(h: RunHandle, nowMs: number, target: AdvanceTarget): number {
    if ('by' in target) return nowMs + target.by * 1000;
    if (target.to === 'end') return h.clock.endMs;
    const feed = h.services.feed;
    if (feed instanceof MirrorReplayFeed) {
      if (target.to === 'next_news') {
        throw new AppError('VALIDATION_ERROR', 'A replay of the recorded mirror has no news: move it by seconds, to next_resolution or to end.', {
          hint: 'For example {"by": 3600} or {"to": "next_resolution"}.',
        });
      }
      return feed.nextResolutionAt(nowMs, h.clock.endMs) ?? h.clock.endMs;
    }
    if (!(feed instanceof SimulatedFeed)) return h.clock.endMs;
    const next = target.to === 'next_news' ? feed.nextNewsAt(nowMs, h.clock.endMs) : feed.nextResolutionAt(nowMs, h.clock.endMs);
    return next ?? h.clock.endMs;
  }

  /**
   * Moves a stepped run's clock to `targetMs`, syncing at least once per simulated day on the way, so the daily equity
   * behind the risk scores has its points and every resolution on the way settles in order.
   */
  private async moveTo(h: RunHandle, targetMs: number): Promise<void> {
    let t = h.clock.nowMs();
    while (t < targetMs) {
      t = Math.min(targetMs, t + DAY_MS);
      h.clock.set(t);
      await this.syncNow(h);
    }
  }

  /** One run's market sync, one at a time across runs (heavy). */
  private async syncNow(h: RunHandle): Promise<void> {
    const outcome = await this.heavy.run(() => h.services.marketSync.runOnce({ force: true }));
    if (outcome.status === 'failed') throw new AppError('INTERNAL', `Replay run ${h.id}: its market sync failed.`);
    h.lastSyncMs = h.clock.nowMs();
  }

  /** A run at a speed syncs when its clock has moved a sync interval (and a wall second) since the last one. */
  private async catchUp(h: RunHandle): Promise<void> {
    const gapMs = Math.max(this.live.config.MARKET_SYNC_INTERVAL_S * 1000, (h.clock.speed ?? 1) * 1000);
    if (h.clock.nowMs() - h.lastSyncMs < gapMs) return;
    await this.exclusive(h, async () => {
      if (h.clock.nowMs() - h.lastSyncMs >= gapMs) await this.syncNow(h);
    });
  }

  private exclusive<T>(h: RunHandle, fn: () => Promise<T>): Promise<T> {
    const run = h.queue.then(fn);
    h.queue = run.catch(() => {});
    return run;
  }

  private view(row: Omit<ReplayRunRow, 'key_hash'>, h?: RunHandle): ReplayView {
    const clock = h && row.state === 'running' ? h.clock.now() : row.sim_now;
    return {
      runId: row.id,
      state: row.state,
      scenario: row.scenario,
      source: isMirror(row.scenario) ? 'mirror' : 'simulated',
      leakageWarning: isMirror(row.scenario) ? MIRROR_LEAKAGE_WARNING : null,
      mode: row.mode,
      speed: row.speed,
      startAt: row.start_at.toISOString(),
      endAt: row.end_at.toISOString(),
      clock: clock.toISOString(),
      accountId: row.account_id,
      createdAt: row.created_at.toISOString(),
      endedAt: row.ended_at ? row.ended_at.toISOString() : null,
      record: row.record,
    };
  }
}

function ended(runId: string): AppError {
  return new AppError('REPLAY_ENDED', `Replay run ${runId} has ended: its books and record are frozen.`, {
    hint: 'Read its record with get_replay, or start a new run with start_replay.',
  });
}

/** The run account's id: fixed by the scenario, so its record's intervals (seeded by the account) replay exactly. */
function accountIdOf(s: ReplayScenario): string {
  const h = createHash('sha256')
    .update(isMirror(s) ? `replay|mirror|${s.from}|${s.to}` : `replay|${s.seed}|${s.days}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
