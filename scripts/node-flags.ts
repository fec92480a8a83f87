import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The node flags of package.json's start script, the one place they are written: benches, `npm run cluster`
 * and its test run the service as `npm start` does (the Docker image runs that script itself).
 */

/** The node flags between `node` and the script of a start script ("node --flag x.js" → ["--flag"]). */
export function startScriptNodeArgs(startScript: string): string[] {
  const words = startScript.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${startScript}`);
  const script = words.findIndex((w, i) => i > 0 && !w.startsWith('-'));
  return words.slice(1, script === -1 ? undefined : script);
}

/** The project root: the nearest folder above this file with a package.json (works from scripts/ and dist/scripts/). */
export function projectRoot(from = __dirname): string {
  let dir = from;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + from);
    dir = up;
  }
  return dir;
}

/** `npm start`'s node flags, read from the project's package.json. */
export function serviceNodeArgs(root = projectRoot()): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return startScriptNodeArgs(pkg.scripts.start);
}
