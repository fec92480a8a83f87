import type { Queryable } from '../../db/database';
import type { ReplayRecord, ReplayScenario } from './replay-runs';
import type { SuiteRun } from './suite-board';

export interface ReplayRunRow {
  id: string;
  owner_id: string;
  scenario: ReplayScenario;
  mode: 'step' | 'speed';
  speed: number | null;
  start_at: Date;
  end_at: Date;
  sim_now: Date;
  wall_started_at: Date;
  account_id: string;
  state: 'running' | 'ended';
  record: ReplayRecord | null;
  created_at: Date;
  ended_at: Date | null;
}

const COLUMNS = 'id, owner_id, scenario, mode, speed, start_at, end_at, sim_now, wall_started_at, account_id, state, record, created_at, ended_at';

/** Every statement on replay_runs (the live database's table of runs; a run's own books are in its own database). */
export class ReplayStore {
  constructor(private readonly db: Queryable) {}

  async insert(r: Omit<ReplayRunRow, 'record' | 'ended_at' | 'state'> & { key_hash: string }): Promise<void> {
    await this.db.query(
      `INSERT INTO replay_runs (id, owner_id, key_hash, scenario, mode, speed, start_at, end_at, sim_now, wall_started_at, account_id, state, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'running', $12)`,
      [
        r.id,
        r.owner_id,
        r.key_hash,
        JSON.stringify(r.scenario),
        r.mode,
        r.speed,
        r.start_at,
        r.end_at,
        r.sim_now,
        r.wall_started_at,
        r.account_id,
        r.created_at,
      ],
    );
  }

  async byId(id: string): Promise<ReplayRunRow | undefined> {
    return (await this.db.query<ReplayRunRow>(`SELECT ${COLUMNS} FROM replay_runs WHERE id = $1`, [id]))[0];
  }

  /** A live account's runs, newest first (list_replays), at most `limit`; the replay_runs_owner_idx order. */
  async byOwner(ownerId: string, limit: number): Promise<ReplayRunRow[]> {
    return this.db.query<ReplayRunRow>(`SELECT ${COLUMNS} FROM replay_runs WHERE owner_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [ownerId, limit]);
  }

  async byKeyHash(hash: string): Promise<ReplayRunRow | undefined> {
    return (await this.db.query<ReplayRunRow>(`SELECT ${COLUMNS} FROM replay_runs WHERE key_hash = $1`, [hash], 'replay_run_by_key'))[0];
  }

  async setClock(id: string, simNow: Date): Promise<void> {
    await this.db.query(`UPDATE replay_runs SET sim_now = $2 WHERE id = $1 AND state = 'running'`, [id, simNow]);
  }

  /**
   * Freezes a running run; undefined when it had already ended (a second end_replay). `onBoard`: whether a suite run's
   * result joins its suite's board (false once the version has retired: its board is read-only).
   */
  async end(id: string, simNow: Date, record: ReplayRecord, at: Date, onBoard = true): Promise<ReplayRunRow | undefined> {
    // A suite run's result is kept apart in the same statement: the suite board counts it even once the run is deleted.
    const rows = await this.db.query<ReplayRunRow>(
      `WITH e AS (
         UPDATE replay_runs SET state = 'ended', sim_now = $2, record = $3, ended_at = $4 WHERE id = $1 AND state = 'running' RETURNING ${COLUMNS}
       ), kept AS (
         INSERT INTO suite_results (run_id, owner_id, suite, scenario, alpha, ended_at)
         SELECT id, owner_id, scenario->>'suite', scenario->>'name', (record #>> '{forecasts,alpha,value}')::double precision, ended_at
         FROM e WHERE scenario->>'suite' IS NOT NULL AND $5::boolean
         ON CONFLICT (run_id) DO NOTHING
       )
       SELECT * FROM e`,
      [id, simNow, JSON.stringify(record), at, onBoard],
    );
    return rows[0];
  }

  /** Removes a run's row (delete_replay): its key names no run from then on. False when it was already gone. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>('DELETE FROM replay_runs WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  /**
   * Every ended run of a suite's scenarios by a live account, with only its frozen alpha (the record's stated-forecast
   * alpha): what the suite board reads, from suite_results, so a deleted run still counts. Scenario names are `<suite>/<nn>`.
   */
  async endedSuiteRuns(suite: string): Promise<SuiteRun[]> {
    const rows = await this.db.query<{
      id: string;
      owner_id: string;
      display_name: string;
      is_agent: boolean;
      scenario: string;
      alpha: number | string | null;
      ended_at: Date;
    }>(
      `SELECT r.run_id AS id, r.owner_id, u.display_name, u.is_agent, r.scenario, r.alpha, r.ended_at
       FROM suite_results r JOIN users u ON u.id = r.owner_id AND u.deleted_at IS NULL
       WHERE r.suite = $1`,
      [suite],
    );
    return rows.map((r) => ({
      runId: r.id,
      userId: r.owner_id,
      displayName: r.display_name,
      isAgent: r.is_agent,
      scenario: r.scenario,
      alpha: r.alpha === null ? null : Number(r.alpha),
      endedAt: r.ended_at,
    }));
  }
}
