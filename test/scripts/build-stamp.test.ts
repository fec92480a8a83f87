import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `npm start` rebuilds only when an input of the build is newer than the stamp the last build wrote. */
describe('scripts/build-stamp.js', () => {
  let root: string;
  const run = (mode: string) => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/build-stamp.js'), mode], { encoding: 'utf8' });
    if (r.stderr) throw new Error(r.stderr);
    return r.status;
  };
  const touch = (file: string, when: Date) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '{}');
    fs.utimesSync(path.join(root, file), when, when);
  };

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stamp-'));
    fs.mkdirSync(path.join(root, 'scripts'));
    fs.copyFileSync(path.resolve(__dirname, '../../scripts/build-stamp.js'), path.join(root, 'scripts/build-stamp.js'));
    const past = new Date(Date.now() - 60_000);
    for (const f of ['src/main.ts', 'package.json', 'web/src/app.tsx', 'web/node_modules/x.js']) touch(f, past);
    for (const d of ['src', 'web', 'web/src', 'web/node_modules', 'scripts', '.']) fs.utimesSync(path.join(root, d), past, past);
    fs.utimesSync(path.join(root, 'scripts/build-stamp.js'), past, past);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  test('when nothing was built yet, then a build is due', () => {
    expect(run('check')).toBe(1);
  });

  test('when the stamp is newer than every input, then no build is due', () => {
    expect(run('write')).toBe(0);
    expect(run('check')).toBe(0);
  });

  test('when a source changes after the build, then a build is due', () => {
    run('write');
    touch('src/main.ts', new Date(Date.now() + 5_000));
    expect(run('check')).toBe(1);
  });

  test('when a file of the web app changes after the build, then a build is due', () => {
    run('write');
    touch('web/src/app.tsx', new Date(Date.now() + 5_000));
    expect(run('check')).toBe(1);
  });

  test('when only installed packages or build outputs change, then no build is due', () => {
    run('write');
    touch('web/node_modules/x.js', new Date(Date.now() + 5_000));
    touch('dist/src/main.js', new Date(Date.now() + 5_000));
    fs.utimesSync(path.join(root, 'web/node_modules'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    fs.utimesSync(path.join(root, 'web'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(run('check')).toBe(0);
  });
});
