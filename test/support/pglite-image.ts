import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/database';
import { testConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { migrationsDigest } from '../../bench/support/migrations-digest';

/**
 * A migrated, empty embedded database as one tar image, made once and shared by every test worker through a
 * file named for the migrations' and PGlite's contents: an in-memory database started from it skips PGlite's
 * initdb and every migration (some 6 s of CPU each time on this machine, against under 1 s to load).
 */
const PGLITE_PACKAGE = path.resolve(__dirname, '../../node_modules/@electric-sql/pglite');

function imageFile(): string {
  const digest = migrationsDigest(fs.readFileSync(path.join(PGLITE_PACKAGE, 'package.json')));
  return path.join(os.tmpdir(), `paper-trading-pglite-${digest}.tar`);
}

let image: Promise<Blob> | undefined;

export function migratedImage(): Promise<Blob> {
  image ??= load();
  return image;
}

async function load(): Promise<Blob> {
  const file = imageFile();
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
  const db = await openDatabase(testConfig({ DATA_DIR: 'memory' }), createLogger('silent'));
  try {
    const blob = await db.embedded!.dump();
    // Written beside, then renamed: a worker reading it never sees half a file.
    const partial = `${file}.${process.pid}`;
    fs.writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    fs.renameSync(partial, file);
    return blob;
  } finally {
    await db.close();
  }
}
