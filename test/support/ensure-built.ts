import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** Tests that run dist/ build it as npm start would: only when an input of the build changed since the last build. */
export function ensureBuilt(): void {
  if (spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-stamp.js'), 'check'], { cwd: ROOT }).status === 0) return;
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build failed:\n${r.stdout}${r.stderr}`);
}
