/**
 * Writes dist/pglite-template/: an embedded database with every migration applied and no rows. A first
 * start on an empty DATA_DIR copies it instead of running PGlite's initdb and the migrations (some 6 s of
 * CPU on this machine against a copy of 40 MB). Run by `npm run build`; the template is never committed.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/db/database';
import { testConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { PGLITE_TEMPLATE_DIR } from '../src/db/pglite';

export async function writePgliteTemplate(target: string): Promise<void> {
  const building = `${target}.building`;
  fs.rmSync(building, { recursive: true, force: true });
  // If an older template exists it is copied and brought up to date by the pending migrations: the same result.
  const db = await openDatabase(testConfig({ DATA_DIR: building }), createLogger('silent'));
  await db.close();
  // Files of the process that made it, which a copy must not inherit.
  for (const f of ['service.lock', 'postmaster.pid']) fs.rmSync(path.join(building, f), { force: true });
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(building, target);
}

if (require.main === module) {
  writePgliteTemplate(PGLITE_TEMPLATE_DIR).catch((err) => {
    process.stderr.write(`pglite template: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
