import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A2A tasks are orders (task id = order id); these tables hold only what A2A adds to an order. `a2a_task_contexts`
 * keeps the contextId a task was created in (a client's conversation id), so GetTask answers it from any process.
 * `a2a_push_configs` holds the push-notification targets of a task (CreateTaskPushNotificationConfig), with the wire
 * version the config was created in (a v0.3 client receives v0.3 payloads). `a2a_push_cursors` is the last account
 * event delivered to an account's push targets: a delivery worker claims the events after it under the row's lock,
 * so each event is pushed by one process even when every process hears it.
 */
export class A2aTasks1700000000020 implements MigrationInterface {
  name = 'A2aTasks1700000000020';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE a2a_task_contexts (
        task_id uuid PRIMARY KEY REFERENCES orders(id),
        user_id uuid NOT NULL REFERENCES users(id),
        context_id text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX a2a_task_contexts_by_context ON a2a_task_contexts (user_id, context_id)');
    await q.query(`
      CREATE TABLE a2a_push_configs (
        task_id uuid NOT NULL REFERENCES orders(id),
        id text NOT NULL,
        user_id uuid NOT NULL REFERENCES users(id),
        url text NOT NULL,
        token text,
        auth_scheme text,
        auth_credentials text,
        wire_version text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (task_id, id)
      )`);
    await q.query('CREATE INDEX a2a_push_configs_by_user ON a2a_push_configs (user_id)');
    await q.query(`
      CREATE TABLE a2a_push_cursors (
        user_id uuid PRIMARY KEY REFERENCES users(id),
        last_seq bigint NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE a2a_push_cursors');
    await q.query('DROP TABLE a2a_push_configs');
    await q.query('DROP TABLE a2a_task_contexts');
  }
}
