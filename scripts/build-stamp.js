#!/usr/bin/env node
// `npm start` rebuilds only when something the build reads changed since the last build finished.
//   node scripts/build-stamp.js check   exit 0 when dist/ is up to date, 1 when a build is due
//   node scripts/build-stamp.js write   records that a build just finished (the last step of `npm run build`)
// Plain JavaScript, so it runs before anything is compiled.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
// What the build reads: sources, build settings and the installed dependencies' lockfile.
const INPUTS = ['src', 'scripts', 'bench', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'ormconfig.ts'];
const SKIP = new Set(['node_modules', 'dist', '.vite']);

/** The newest modification time under `p` (a file or a folder), skipping build outputs. */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs; // a deleted file shows as its folder's change
  for (const entry of fs.readdirSync(p)) {
    if (SKIP.has(entry)) continue;
    max = Math.max(max, newest(path.join(p, entry)));
  }
  return max;
}

function upToDate() {
  let built;
  try {
    built = fs.statSync(stamp).mtimeMs;
  } catch {
    return false;
  }
  return INPUTS.every((input) => newest(path.join(root, input)) <= built);
}

const mode = process.argv[2];
if (mode === 'write') {
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, new Date().toISOString() + '\n');
} else if (mode === 'check') {
  process.exit(upToDate() ? 0 : 1);
} else {
  process.stderr.write('usage: build-stamp.js check|write\n');
  process.exit(2);
}
