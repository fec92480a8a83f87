import type { BenchmarkRecordView } from '../benchmark/benchmark-service';

/** A replay scenario: the simulated venue's seed and the window's length in simulated days. */
export interface ReplayScenario {
  seed: number;
  days: number;
}

export type ReplayMode = { kind: 'step' } | { kind: 'speed'; speed: number };

/** Where advance_replay moves a stepped run's clock: by a number of seconds, or to the next event of the venue. */
export type AdvanceTarget = { by: number } | { to: 'next_news' | 'next_resolution' | 'end' };

/** The benchmark record of a run's account as end_replay froze it: the live benchmark's record, labelled. */
export type ReplayRecord = BenchmarkRecordView & { venue: 'replay' };

export interface ReplayView {
  runId: string;
  state: 'running' | 'ended';
  scenario: ReplayScenario;
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
  advance(caller: ReplayCaller, runId: string, target: AdvanceTarget): Promise<ReplayView>;
  end(caller: ReplayCaller, runId: string): Promise<ReplayView>;
}
