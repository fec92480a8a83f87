import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A lint script of scripts/ run on a throwaway tree of files: `write` lays files out in `dir()` (made fresh before each
 * test, removed after), `check(target, ...args)` runs the script from the project root and returns its exit and output.
 */
export function scriptOnTree(script: string, prefix: string) {
  const file = path.join(__dirname, '../../scripts', script);
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    dir: () => dir,
    write(files: Record<string, string>): void {
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
    },
    check: (target: string, ...args: string[]) =>
      spawnSync(process.execPath, [file, target, ...args], { encoding: 'utf8', cwd: path.join(__dirname, '../..') }),
  };
}
