import { randomUUID } from 'node:crypto';
import { AppError } from '../../src/errors/app-error';
import type { AnyMethod } from '../../src/registry/method';
import type { AnyStream, StreamEvent, StreamSink } from '../../src/registry/stream';
import { openStream, StreamSlots } from '../../src/registry/open-stream';
import type { CallInfo } from '../../src/registry/context';
import { candidateRange, tokenIdOf } from '../../src/market-data/simulated/catalog';
import { callAs, type AgentDeps } from '../../src/transports/reference-forecasters';
import type { SuiteScenario } from '../../src/domain/replay/replay-suite';
import { Random } from './random';
import { NO_DATA_IN_A_RUN, randomInput, runReachableReads, runReachableStreams, type Known } from './readers';
import { scanAnswer, type Leak } from './scan';
import { VenueTruth } from './venue-truth';

/** One call with a key, through the registry's pipeline: the answer, or the AppError it was refused with. */
export type ProbeCall = (key: string, method: string, input: Record<string, unknown>) => Promise<unknown>;

/** Calls as an in-process agent does (callAs: the whole invoke pipeline, as any transport's call). */
export function pipelineCall(deps: AgentDeps): ProbeCall {
  return (key, method, input) => callAs(deps, key, method, input);
}

/** Opens a stream with a key, through the streams' pipeline (openStream), into `sink`; rejects when it is refused. */
export type ProbeStream = (key: string, stream: string, input: Record<string, unknown>, sink: StreamSink) => Promise<void>;

/** Opens streams as the SSE transport does (openStream: a run key's stream is the run's). */
export function pipelineStream(deps: AgentDeps): ProbeStream {
  const slots = new StreamSlots();
  return (key, name, input, sink) => {
    const stream = deps.registry.streams.find((s) => s.name === name);
    if (!stream) throw new Error(`no stream ${name}`);
    const call: CallInfo = {
      transport: 'internal',
      requestId: randomUUID(),
      ip: '127.0.0.1',
      credentials: { bearer: key },
      address: { origin: deps.origin, own: [deps.origin] },
    };
    return openStream(deps, stream, input, call, sink, slots);
  };
}

/** A stream's receiving end in the probe: it keeps what was sent until the probe scans it. */
class CollectingSink implements StreamSink {
  pending: StreamEvent[] = [];
  received = 0;
  closed = false;
  private readonly listeners: Array<() => void> = [];

  send(event: StreamEvent): boolean {
    if (this.closed) return false;
    this.pending.push(event);
    this.received += 1;
    return true;
  }

  drained(): Promise<void> {
    return Promise.resolve();
  }

  onClose(listener: () => void): void {
    this.listeners.push(listener);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of this.listeners) l();
  }

  take(): StreamEvent[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }
}

export interface EpisodeOptions {
  call: ProbeCall;
  /** Opens the run's streams; without it the streams are not probed (and count as unprobed). */
  stream?: ProbeStream;
  /** The registry's methods: the reads probed are derived from them. */
  methods: readonly AnyMethod[];
  /** The registry's streams: every one a run key reaches is held open through the episode. */
  streams: readonly AnyStream[];
  /** A live key: it starts the episode's run. */
  liveKey: string;
  /** The service's venue master secret: the probe rebuilds the scenario's venue from it. */
  master: Buffer;
  scenario: SuiteScenario;
  /** The probe's seed: the same seed draws the same reads, steps and trades. */
  seed: number;
  reads: number;
  /** Moves of the run's clock, spread among the reads. */
  steps: number;
  /** Buys, resting orders, forecasts and sells, spread among the reads. */
  trades: number;
  /** Suites a reader may name (list_replay_suite, the suite board). */
  suites: string[];
}

export interface MethodTally {
  calls: number;
  ok: number;
  refused: number;
}

export interface EpisodeResult {
  episode: string;
  seed: number;
  runId: string;
  reads: number;
  steps: number;
  trades: number;
  /** Time-like values and prices checked against the clock and the venue's path. */
  stamps: number;
  prices: number;
  /** Prices of a known market matching none of its path's prices at the answer's moment nor later ones, by method:field. */
  unexplained: Record<string, number>;
  clockFrom: string;
  clockTo: string;
  byMethod: Record<string, MethodTally>;
  /** Events each reachable stream sent while held open through the episode (a stream refused at opening: absent). */
  byStream: Record<string, number>;
  /**
   * Prices stream_prices pushed as the run's clock moved (stamped after the run's start: its steps' syncs), each scanned
   * at the clock when it arrived; the first prices of the stream are not counted here.
   */
  pricesStreamed: number;
  /** Reachable read methods never answered with data (NO_DATA_IN_A_RUN's aside), and streams that could not be opened. */
  unprobed: string[];
  leaks: Leak[];
  /** Prices at the clock leaning toward news not yet published (scan.ts: the venue's path, reported apart). */
  ahead: Leak[];
  wallMs: number;
  /** Of the wall time: in the service's calls, and in the probe's scans. */
  callMs: number;
  scanMs: number;
}

interface RunView {
  runId: string;
  apiKey: string;
  accountId: string;
  clock: string;
  startAt: string;
  endAt: string;
}

const DAY_MS = 86_400_000;
const ISO_IN_TEXT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})/g;

/**
 * Probes one episode: starts a stepped run of the scenario, then makes `reads` random reads across every method a run's
 * key can read with (runReachableReads: first each once, then at random), interleaved with `steps` moves of the run's
 * clock and `trades` trades, and scans every answer (scanAnswer) against the run's clock and the venue's path. The run
 * is deleted at the end (its data with it).
 */
export async function probeEpisode(o: EpisodeOptions): Promise<EpisodeResult> {
  const started = Date.now();
  const rnd = new Random(o.seed);
  const venue = new VenueTruth(o.master, o.scenario);
  const reads = runReachableReads(o.methods);
  const run = (await o.call(o.liveKey, 'start_replay', { scenario: o.scenario.name })) as RunView;
  const known: Known = {
    runId: run.runId,
    accountId: run.accountId,
    clockMs: Date.parse(run.clock),
    startMs: Date.parse(run.startAt),
    markets: [],
    unborn: [],
    orders: [],
    positions: [],
    newsMarkets: [],
    suites: o.suites,
    cursors: new Map(),
  };
  const byMethod: Record<string, MethodTally> = Object.fromEntries(reads.map((m) => [m.name, { calls: 0, ok: 0, refused: 0 }]));
  const leaks: Leak[] = [];
  const ahead: Leak[] = [];
  /** The moments the run's venue was synced at (its start, each step's days and end): its price snapshots' times. */
  const syncs: number[] = [known.clockMs];
  let stamps = 0;
  let prices = 0;
  const unexplained: Record<string, number> = {};
  let callMs = 0;
  let scanMs = 0;

  const scan = (method: string, answer: unknown) => {
    const s = scanAnswer(method, answer, known.clockMs, venue, syncs);
    leaks.push(...s.leaks);
    ahead.push(...s.ahead);
    stamps += s.stamps;
    prices += s.prices;
    for (const f of s.unexplained) {
      const k = `${method}:${f}`;
      unexplained[k] = (unexplained[k] ?? 0) + 1;
    }
  };
  /** A refusal's words are scanned for times too (an error that names a later moment tells of it). */
  const scanRefusal = (method: string, err: AppError) => {
    const text = [err.message, err.hint ?? '', JSON.stringify(err.details ?? [])].join(' ');
    for (const m of text.matchAll(ISO_IN_TEXT)) {
      stamps += 1;
      if (Date.parse(m[0]) > known.clockMs) leaks.push({ method, field: '(error)', value: m[0], why: `a refusal names ${m[0]}, after the run’s clock` });
    }
  };
  const callRun: CallRun = async (method, input) => {
    try {
      const t0 = performance.now();
      const answer = await o.call(run.apiKey, method, input);
      const t1 = performance.now();
      // A step's answer is at the clock it moved to; the run synced once a day on the way there and at its end.
      if (method === 'advance_replay') {
        const to = Date.parse((answer as RunView).clock);
        for (let t = known.clockMs + DAY_MS; t < to; t += DAY_MS) syncs.push(t);
        syncs.push(to);
        known.clockMs = to;
      }
      scan(method, answer);
      drainStreams();
      callMs += t1 - t0;
      scanMs += performance.now() - t1;
      learn(known, answer, method);
      return { ok: true, answer };
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'INTERNAL') throw withContext(err, method, input, o.seed);
      scanRefusal(method, err);
      return { ok: false, err };
    }
  };
  const sinks = new Map<string, CollectingSink>();
  /** Scans what the streams pushed since the last call, at the clock now (a step's events come before its answer). */
  let pricesStreamed = 0;
  const drainStreams = () => {
    for (const [name, sink] of sinks)
      for (const e of sink.take()) {
        scan(name, e.data);
        const at = (e.data as { at?: unknown }).at;
        if (name === 'stream_prices' && typeof at === 'string' && Date.parse(at) > Date.parse(run.startAt)) pricesStreamed += 1;
      }
  };
  const refreshUnborn = () => {
    const { to } = candidateRange(venue.feed.params, known.clockMs + 2 * 86_400_000);
    known.unborn = [];
    for (let k = to; k > to - 200 && known.unborn.length < 10; k--) {
      const spec = venue.feed.spec(k);
      if (spec.createdAtMs > known.clockMs) {
        known.unborn.push({ id: spec.id, slug: spec.slug, tokens: [tokenIdOf(venue.feed.params, k, 'YES'), tokenIdOf(venue.feed.params, k, 'NO')] });
      }
    }
  };

  try {
    refreshUnborn();
    // What a reader names comes from what the run has shown: a first page of the markets.
    await callRun('list_markets', { limit: 80 });
    // Every stream a run key reaches stays open through the episode: what it pushes is scanned as answers are.
    for (const stream of runReachableStreams(o.streams)) {
      if (!o.stream) break;
      const sink = new CollectingSink();
      const input =
        stream.name === 'stream_prices'
          ? { markets: rnd.sample(known.markets, 20).map((m) => m.id) }
          : // A resumable stream replays from the start: everything the account has, then what comes.
            'lastEventId' in stream.input.shape
            ? { lastEventId: '0' }
            : {};
      try {
        await o.stream(run.apiKey, stream.name, input, sink);
        sinks.set(stream.name, sink);
      } catch (err) {
        if (!(err instanceof AppError)) throw withContext(err, stream.name, input, o.seed);
      }
    }
    const plan = schedule(rnd, o.reads, o.steps, o.trades);
    const order = rnd.sample(reads, reads.length);
    let readCount = 0;
    let stepCount = 0;
    let tradeCount = 0;
    for (const what of plan) {
      if (what === 'step') {
        // Mostly to the next news item or a few hours on; now and then to the next resolution, or days ahead.
        const r = rnd.next();
        const target =
          r < 0.4
            ? { to: 'next_news' }
            : r < 0.55
              ? { to: 'next_resolution' }
              : r < 0.65
                ? { by: rnd.int(86_400, 3 * 86_400) }
                : { by: rnd.int(600, 8 * 3600) };
        const moved = await callRun('advance_replay', { runId: run.runId, ...target });
        if (moved.ok) {
          refreshUnborn();
          stepCount += 1;
        }
        continue;
      }
      if (what === 'trade') {
        if (await trade(rnd, known, callRun)) tradeCount += 1;
        continue;
      }
      const method = readCount < order.length ? order[readCount]! : rnd.pick(reads);
      readCount += 1;
      const input = randomInput(method, known, rnd);
      const tally = byMethod[method.name]!;
      tally.calls += 1;
      const res = await callRun(method.name, input);
      if (res.ok) tally.ok += 1;
      else tally.refused += 1;
    }
    // Pushes still on their way after the last call are scanned too.
    await new Promise((resolve) => setTimeout(resolve, 50));
    drainStreams();
    const unprobed = [
      ...reads.filter((m) => byMethod[m.name]!.ok === 0 && !(m.name in NO_DATA_IN_A_RUN)).map((m) => m.name),
      ...runReachableStreams(o.streams)
        .filter((s) => !sinks.has(s.name))
        .map((s) => s.name),
    ];
    return {
      episode: o.scenario.name,
      seed: o.seed,
      runId: run.runId,
      reads: readCount,
      steps: stepCount,
      trades: tradeCount,
      stamps,
      prices,
      unexplained,
      clockFrom: run.startAt,
      clockTo: new Date(known.clockMs).toISOString(),
      byMethod,
      byStream: Object.fromEntries([...sinks].map(([name, sink]) => [name, sink.received])),
      pricesStreamed,
      unprobed,
      leaks,
      ahead,
      wallMs: Date.now() - started,
      callMs: Math.round(callMs),
      scanMs: Math.round(scanMs),
    };
  } finally {
    for (const sink of sinks.values()) sink.end();
    await o.call(o.liveKey, 'delete_replay', { runId: run.runId }).catch(() => {});
  }
}

/** The episode's calls in order: reads, steps and trades shuffled together, never a step first (the start is read too). */
function schedule(rnd: Random, reads: number, steps: number, trades: number): Array<'read' | 'step' | 'trade'> {
  const rest: Array<'read' | 'step' | 'trade'> = [
    ...Array<'read'>(reads - 1).fill('read'),
    ...Array<'step'>(steps).fill('step'),
    ...Array<'trade'>(trades).fill('trade'),
  ];
  return ['read', ...rnd.sample(rest, rest.length)];
}

type CallRun = (method: string, input: Record<string, unknown>) => Promise<{ ok: true; answer: unknown } | { ok: false; err: AppError }>;

/** One trade of the run's account: a small buy (with a forecast now and then), a resting limit order, a forecast, or a sell. */
async function trade(rnd: Random, known: Known, callRun: CallRun): Promise<boolean> {
  if (known.markets.length === 0) return false;
  const m = rnd.pick(known.markets);
  const r = rnd.next();
  if (r < 0.45) {
    const yes = rnd.chance(0.5);
    const forecast = rnd.chance(0.5) ? { forecast: rnd.int(5, 95) / 100 } : {};
    return (
      await callRun('paper_trade', {
        marketId: m.id,
        marketSlug: m.slug,
        tokenId: m.tokens[yes ? 0 : 1],
        outcome: yes ? 'YES' : 'NO',
        amount: rnd.int(1, 20),
        ...forecast,
      })
    ).ok;
  }
  if (r < 0.7) {
    // A bid far below the market rests: get_order and list_orders then have an order to show.
    const placed = await callRun('place_order', { tokenId: rnd.pick(m.tokens), side: 'BUY', limitPrice: rnd.int(1, 5) / 100, amount: rnd.int(1, 10) });
    if (placed.ok) {
      const id = (placed.answer as { id?: string; order?: { id?: string } }).order?.id ?? (placed.answer as { id?: string }).id;
      if (id) known.orders.push(id);
    }
    return placed.ok;
  }
  if (r < 0.85 || known.positions.length === 0) {
    return (await callRun('submit_forecast', { marketId: m.id, probability: rnd.int(5, 95) / 100 })).ok;
  }
  return (await callRun('sell_position', { id: rnd.pick(known.positions), quantity: 1 })).ok;
}

/** Learns what later inputs may name from an answer: markets with their tokens, orders, positions and the next cursor. */
function learn(known: Known, answer: unknown, method: string): void {
  const seen = new Set(known.markets.map((m) => m.id));
  const visit = (v: unknown, parentKey: string) => {
    if (Array.isArray(v)) return v.forEach((x) => visit(x, parentKey));
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (typeof o.id === 'string' && /^sim-\d+$/.test(o.id) && typeof o.slug === 'string' && Array.isArray(o.outcomeTokens) && !seen.has(o.id)) {
      const tokens = (o.outcomeTokens as Array<{ tokenId?: unknown }>).map((t) => t.tokenId).filter((t): t is string => typeof t === 'string');
      if (o.status === undefined || o.status === 'active') {
        known.markets.push({ id: o.id, slug: o.slug, tokens });
        seen.add(o.id);
      }
    }
    if (parentKey === 'positions' && typeof o.id === 'string' && !known.positions.includes(o.id)) known.positions.push(o.id);
    if (parentKey === 'orders' && typeof o.id === 'string' && !known.orders.includes(o.id)) known.orders.push(o.id);
    for (const [k, x] of Object.entries(o)) visit(x, k);
  };
  visit(answer, '');
  const next = (answer as { nextCursor?: unknown } | null)?.nextCursor;
  if (typeof next === 'string') known.cursors.set(method, next);
  else known.cursors.delete(method);
  if (known.markets.length > 400) known.markets.splice(0, known.markets.length - 400);
}

function withContext(err: unknown, method: string, input: Record<string, unknown>, seed: number): Error {
  const e = new Error(`probe seed ${seed}: ${method}(${JSON.stringify(input)}) failed: ${err instanceof Error ? err.message : String(err)}`);
  (e as Error & { cause?: unknown }).cause = err;
  return e;
}
