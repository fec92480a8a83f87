import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const MIGRATIONS_DIR = path.resolve(__dirname, '../../src/db/migrations');

/**
 * A digest of every migration's name and contents, naming the migrated databases tests and benches copy (PGlite's
 * image, the PostgreSQL template): a changed or added migration names a new one, so a stale copy is never used. `extra`
 * is whatever else the copy depends on. Built, it digests the built migrations (dist/src/db/migrations).
 */
export function migrationsDigest(...extra: Buffer[]): string {
  const hash = createHash('sha256');
  for (const f of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(f).update(fs.readFileSync(path.join(MIGRATIONS_DIR, f)));
  for (const e of extra) hash.update(e);
  return hash.digest('hex').slice(0, 16);
}
