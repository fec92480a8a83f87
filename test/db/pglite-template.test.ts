import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writePgliteTemplate } from '../../scripts/write-pglite-template';
import { openPglite, PGLITE_TEMPLATE_DIR } from '../../src/db/pglite';
import { openDatabase } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger, type Logger } from '../../src/logger';

/** A first start on an empty DATA_DIR copies the build's migrated template instead of initdb and every migration. */
describe('the embedded database template', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-template-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const recording = () => {
    const lines: string[] = [];
    const base = createLogger('silent');
    const log: Logger = { ...base, info: (msg: string) => void lines.push(msg), warn: (msg: string) => void lines.push(msg) };
    return { log, lines };
  };

  test('when there is no template, then PGlite creates the database itself; when the template exists, then a new data directory starts from it with every migration applied', async () => {
    const template = path.join(dir, 'template');
    // Writing the template is itself a start with no template (none is ever built beside the sources): PGlite's own
    // initdb, then every migration. (A separate test of a bare start ran initdb a second time: half a minute of CI.)
    expect(fs.existsSync(PGLITE_TEMPLATE_DIR)).toBe(false);
    await writePgliteTemplate(template);
    expect(fs.existsSync(path.join(template, 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(path.join(template, 'service.lock'))).toBe(false);

    const dataDir = path.join(dir, 'data');
    const { log, lines } = recording();
    const embedded = await openPglite(dataDir, log, { templateDir: template });
    await embedded.close();
    expect(lines).toContain('embedded database created from the build template');

    // Opened as the service opens it: nothing left to migrate.
    const opened = recording();
    const db = await openDatabase(testConfig({ DATA_DIR: dataDir }), opened.log);
    try {
      expect(await db.pendingMigrations()).toBe(false);
      expect(opened.lines).not.toContain('migrations applied');
      expect(await db.query('SELECT count(*)::int AS n FROM users')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
    // initdb and every migration, then two opens: a minute is not enough on a busy two-core machine.
  }, 180_000);

  test('when the data directory already holds a database, then the template is not copied over it', async () => {
    const { log, lines } = recording();
    const embedded = await openPglite(path.join(dir, 'data'), log, { templateDir: path.join(dir, 'template') });
    await embedded.close();
    expect(lines).not.toContain('embedded database created from the build template');
  });
});
