import type { BenchmarkRecordView } from '../benchmark/benchmark-service';
import type { SuiteRecord } from './suite-board';

/** Every scenario's window starts here: a year into the simulated venue, when its catalog holds markets of every length. */
export const REPLAY_START_MS = Date.UTC(2025, 0, 1);

/**
 * A replay scenario of the simulated venue: its seed and the window's length in simulated days; `name` when it is a
 * published suite's scenario (suite-v1/07, src/domain/replay/replay-suite.ts), which is what the suite board counts.
 */
export interface SimulatedScenario {
  seed: number;
  days: number;
  name?: string;
  /** The suite of a named scenario (suite-v1), which the suite board selects by. */
  suite?: string;
  /**
   * The one catalogue category the venue lists (a suite-v2 episode): its markets and their news only. Absent or null:
   * the whole venue.
   */
  category?: string | null;
}

/** A replay scenario of the recorded Polymarket mirror (issue 35 item 6): a past window, ISO times. */
export interface MirrorScenario {
  source: 'mirror';
  from: string;
  to: string;
}

export type ReplayScenario = SimulatedScenario | MirrorScenario;

export function isMirror(s: ReplayScenario): s is MirrorScenario {
  return 'source' in s && s.source === 'mirror';
}

/** Said with every run and record of the recorded mirror: its markets are real and how they ended is public. */
export const MIRROR_LEAKAGE_WARNING =
  'These are real Polymarket markets replayed from the mirror’s records: how they ended is known to the world and may be known to ' +
  'your agent (a language model has likely read about them). A record here measures little more than recall; use the simulated ' +
  'venue (seed and days) to measure skill.';

export type ReplayMode = { kind: 'step' } | { kind: 'speed'; speed: number };

/** Where advance_replay moves a stepped run's clock: by a number of seconds, or to the next event of the venue. */
export type AdvanceTarget = { by: number } | { to: 'next_news' | 'next_resolution' | 'end' };

/** The benchmark record of a run's account as end_replay froze it: the live benchmark's record, labelled. */
export type ReplayRecord = BenchmarkRecordView & { venue: 'replay'; source?: 'simulated' | 'mirror'; leakageWarning?: string | null };

export interface ReplayView {
  runId: string;
  state: 'running' | 'ended';
  scenario: ReplayScenario;
  /** What the run replays: the simulated venue, or the recorded Polymarket mirror. */
  source: 'simulated' | 'mirror';
  /** MIRROR_LEAKAGE_WARNING for a mirror run; null for the simulated venue. */
  leakageWarning: string | null;
  mode: 'step' | 'speed';
  speed: number | null;
  startAt: string;
  endAt: string;
  /** The run's simulated now. */
  clock: string;
  accountId: string;
  createdAt: string;
  endedAt: string | null;
  record: ReplayRecord | null;
}

/** Who asks about a run: a live account, or the run's own account (runId set: the call came with that run's key). */
export interface ReplayCaller {
  userId: string;
  runId?: string;
}

/**
 * Replay runs (issue 35 item 2), as the methods see them. The implementation builds each run's own services on its own
 * database (src/replay/run-host.ts); the domain only names what a run offers.
 */
export interface ReplayRuns {
  start(owner: ReplayCaller, input: { scenario: ReplayScenario; mode: ReplayMode; bankrollMicro?: bigint }): Promise<ReplayView & { apiKey: string }>;
  get(caller: ReplayCaller, runId: string): Promise<ReplayView>;
  /** The caller's runs, newest first, at most `limit`: a live key's every run, a run key its own run only. */
  list(caller: ReplayCaller, limit: number): Promise<ReplayView[]>;
  advance(caller: ReplayCaller, runId: string, target: AdvanceTarget): Promise<ReplayView>;
  end(caller: ReplayCaller, runId: string): Promise<ReplayView>;
  /** Deletes a run with its data (delete_replay): its database, its row and so its key. Only the live owner may. */
  delete(caller: ReplayCaller, runId: string): Promise<void>;
  /** Every live owner's record on a suite: their ended runs of its scenarios, latest per scenario (suite-board.ts). */
  suiteRecords(suite: string): Promise<SuiteRecord[]>;
}
