import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks: the URLs an account registered (create_webhook), one delivery per endpoint and account event, and each
 * delivery's attempts. State lives here, not in a process, so deliveries survive restarts and any process of the
 * cluster may send them: a process claims a due delivery by setting `lease_until` under `FOR UPDATE SKIP LOCKED`.
 * `cursor_seq` is the last event of the account the endpoint has queued (events after it are still to be queued).
 * An endpoint's deliveries go out one at a time in seq order: only its lowest pending seq is ever claimable, which
 * `webhook_deliveries_pending` serves; the others wait with `next_attempt_at` null, so `webhook_deliveries_due` holds
 * (nearly) only deliveries that can go. `attempts` numbers every attempt ever made; `tries` counts those of the current
 * round against the retry schedule (a replay starts a new round).
 */
export class Webhooks1700000000019 implements MigrationInterface {
  name = 'Webhooks1700000000019';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id),
        url text NOT NULL,
        description text,
        types text[],
        secret text NOT NULL,
        previous_secret text,
        previous_secret_until timestamptz,
        state text NOT NULL CHECK (state IN ('enabled', 'disabled')),
        disabled_reason text,
        cursor_seq bigint NOT NULL CHECK (cursor_seq >= 0),
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX webhook_endpoints_user ON webhook_endpoints (user_id, created_at)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        seq bigint NOT NULL,
        type text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        tries integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        lease_until timestamptz,
        lease_token uuid,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        UNIQUE (endpoint_id, seq)
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, seq) WHERE state = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'`);
    await q.query(`
      CREATE TABLE webhook_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        n integer NOT NULL CHECK (n > 0),
        at timestamptz NOT NULL,
        status integer,
        error text,
        duration_ms integer NOT NULL,
        PRIMARY KEY (delivery_id, n)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_attempts');
    await q.query('DROP TABLE webhook_deliveries');
    await q.query('DROP TABLE webhook_endpoints');
  }
}
