import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger';

/**
 * Postgres settings the embedded database runs with, on top of PGlite's own start parameters. PGlite puts
 * Postgres's shared memory inside its WebAssembly memory and touches all of it at start, so initdb's 128 MB
 * of shared_buffers was some 120 MB of the idle process (bench/README.md, "Embedded database's memory").
 * The files sit in the OS's page cache behind it either way; 16 MB of buffers (2,048 pages) holds a
 * trying-out database's working set. Durability is unchanged: this sizes a cache, not what is written.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '16MB' };

/** Made by `npm run build` (scripts/write-pglite-template.ts) beside dist/src: migrated, empty. */
export const PGLITE_TEMPLATE_DIR = path.join(__dirname, '..', '..', 'pglite-template');

export interface EmbeddedPostgres {
  pgConfig: Record<string, unknown>;
  /** The whole database as one tar image, which `seed.image` of another openPglite starts from. */
  dump: () => Promise<Blob>;
  /** LISTEN on the embedded database: `onPayload` hears every NOTIFY on `channel` that commits, from any connection. */
  listen: (channel: string, onPayload: (payload: string) => void) => Promise<() => Promise<void>>;
  close: () => Promise<void>;
}

/** Where a new embedded database starts from, instead of PGlite's initdb and every migration. */
export interface EmbeddedSeed {
  /** A data directory to copy into an empty DATA_DIR (default: the build's template). */
  templateDir?: string;
  /** A dumped image (EmbeddedPostgres.dump) for an in-memory database: the tests' migrated start. */
  image?: Blob;
}

/**
 * The embedded PostgreSQL (PGlite) behind pg's own adapter, so transactions and FOR UPDATE behave
 * (typeorm-pglite shares one session across connections and loses updates: STACK.md).
 * Two processes on one directory would silently lose writes, so a lockfile refuses the second.
 */
export async function openPglite(dataDir: string, log: Logger, seed: EmbeddedSeed = {}): Promise<EmbeddedPostgres> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const inMemory = dataDir === 'memory';
  let releaseLock = () => {};
  if (!inMemory) {
    fs.mkdirSync(dataDir, { recursive: true });
    releaseLock = takeLock(path.join(dataDir, 'service.lock'));
    if (seedFromTemplate(dataDir, seed.templateDir ?? PGLITE_TEMPLATE_DIR)) log.info('embedded database created from the build template', { dataDir });
    log.warn('embedded database in use: not crash-durable (no fsync); set DATABASE_URL for data you care about', { dataDir });
  }
  const pglite = await PGlite.create(inMemory ? undefined : path.resolve(dataDir), {
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
    ...(inMemory && seed.image ? { loadDataDir: seed.image } : {}),
  });
  const pgConfig = createPgConfig(pglite) as unknown as Record<string, unknown>;
  return {
    pgConfig: { ...pgConfig },
    dump: () => pglite.dumpDataDir('none'),
    listen: (channel, onPayload) => pglite.listen(channel, onPayload),
    close: async () => {
      await pglite.close();
      releaseLock();
    },
  };
}

/**
 * A new data directory starts as a copy of the build's template instead of PGlite's initdb and every
 * migration (most of a first start's time). Without a template, PGlite creates the database as before.
 */
function seedFromTemplate(dataDir: string, templateDir: string): boolean {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION')) || !fs.existsSync(path.join(templateDir, 'PG_VERSION'))) return false;
  fs.cpSync(templateDir, dataDir, { recursive: true });
  return true;
}

function takeLock(file: string): () => void {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(fs.readFileSync(file, 'utf8'));
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new Error(`DATA_DIR is in use by process ${holder} (${file}); two processes on one embedded database lose writes`);
    }
    fs.writeFileSync(file, String(process.pid));
  }
  return () => fs.rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
