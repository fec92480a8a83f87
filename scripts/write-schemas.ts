/**
 * Writes schemas/<method>.input.json and .output.json for every registry method and deletes the stale
 * ones, docs/methods.md, the methods reference, docs/configuration.md, the settings of src/config.ts, and
 * docs/rate-limits.md, the rate-limit classes, and the toolset table of docs/surfaces.md. Run with `npm run schemas`; test/documents/schemas-drift.test.ts
 * fails until the files match.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildRegistry } from '../src/methods';
import { SCHEMA_FILE_PATTERN, schemaFiles } from '../src/documents/schema-files';
import { methodsReference } from '../src/documents/methods-reference';
import { configurationReference } from '../src/documents/configuration-reference';
import { rateLimitsReference } from '../src/documents/rate-limits-reference';
import { withToolsetsTable } from '../src/documents/toolset-listing';

/** The project root: the nearest folder above this file with a package.json (works from src and from dist). */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + __dirname);
    dir = up;
  }
  return dir;
}

const dir = path.join(projectRoot(), 'schemas');
fs.mkdirSync(dir, { recursive: true });
const methods = buildRegistry().methods;
const files = schemaFiles(methods);
let written = 0;
let removed = 0;
for (const [name, content] of files) {
  const target = path.join(dir, name);
  if (fs.existsSync(target) && fs.readFileSync(target, 'utf8') === content) continue;
  fs.writeFileSync(target, content);
  written += 1;
}
for (const name of fs.readdirSync(dir)) {
  if (SCHEMA_FILE_PATTERN.test(name) && !files.has(name)) {
    fs.rmSync(path.join(dir, name));
    removed += 1;
  }
}
process.stdout.write(`schemas/: ${files.size} files, ${written} written, ${removed} stale removed\n`);
const reference = path.join(projectRoot(), 'docs', 'methods.md');
fs.mkdirSync(path.dirname(reference), { recursive: true });
fs.writeFileSync(reference, methodsReference(methods));
process.stdout.write(`docs/methods.md: ${methods.length} methods\n`);
fs.writeFileSync(path.join(projectRoot(), 'docs', 'configuration.md'), configurationReference());
process.stdout.write('docs/configuration.md written\n');
fs.writeFileSync(path.join(projectRoot(), 'docs', 'rate-limits.md'), rateLimitsReference(methods));
process.stdout.write('docs/rate-limits.md written\n');
const surfaces = path.join(projectRoot(), 'docs', 'surfaces.md');
fs.writeFileSync(surfaces, withToolsetsTable(fs.readFileSync(surfaces, 'utf8'), methods));
process.stdout.write('docs/surfaces.md: toolsets written\n');
