import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
export const WEB_DIST = path.join(ROOT, 'dist', 'web');
export const WEB_MANIFEST = path.join(WEB_DIST, '.vite', 'manifest.json');
/** The app's first-view renderer for the service (web/vite.ssr.config.mts), built after the browser app. */
export const WEB_SSR = path.join(WEB_DIST, 'ssr', 'entry-server.js');
const LOCK = path.join(ROOT, 'dist', '.web-build.lock');

function newestMtime(entry: string): number {
  const st = fs.statSync(entry);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

function isStale(): boolean {
  if (!fs.existsSync(WEB_MANIFEST) || !fs.existsSync(path.join(WEB_DIST, 'index.html')) || !fs.existsSync(WEB_SSR)) return true;
  const built = Math.min(fs.statSync(WEB_MANIFEST).mtimeMs, fs.statSync(WEB_SSR).mtimeMs);
  return newestMtime(path.join(ROOT, 'web')) > built || fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs > built;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds the web app into dist/web (vite build, ~2-10 s) when it is missing or older than a file under web/,
 * so the browser suites test the code as it is. Parallel jest workers take turns through a lock folder.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (!isStale()) return;
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch {
      // Another worker is building: a lock older than two minutes is a crashed run's.
      if (Date.now() > deadline || Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })!.mtimeMs > 120_000)
        fs.rmSync(LOCK, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    if (isStale()) {
      // The browser app, then the first-view renderer (the first empties dist/web), as npm run build:web does.
      for (const config of ['web/vite.config.mts', 'web/vite.ssr.config.mts']) {
        execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', config, '--logLevel', 'warn'], {
          cwd: ROOT,
          // jest sets NODE_ENV=test, with which Vite bundles React's development build: build as npm run build does.
          env: { ...process.env, NODE_ENV: 'production' },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
      }
    }
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}
