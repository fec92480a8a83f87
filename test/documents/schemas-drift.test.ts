import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ALL_METHODS } from '../../src/methods';
import { SCHEMA_FILE_PATTERN, schemaFiles } from '../../src/documents/schema-files';
import { methodsReference } from '../../src/documents/methods-reference';
import { configurationReference } from '../../src/documents/configuration-reference';
import { rateLimitsReference } from '../../src/documents/rate-limits-reference';
import { toolsetListings, withToolsetsTable } from '../../src/documents/toolset-listing';
import { TOOLSET_NAMES } from '../../src/registry/toolsets';
import { limitsFromConfig } from '../../src/limits/rate-limiter';
import { loadConfig } from '../../src/config';
import { CONFIG_FIELDS, testConfig } from '../../src/config';

const DIR = path.join(__dirname, '..', '..', 'schemas');

describe('schemas/ (committed JSON Schemas of every method)', () => {
  test('when the committed files differ from the code, then this fails and says to run npm run schemas', () => {
    const expected = schemaFiles(ALL_METHODS);
    const present = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((n) => SCHEMA_FILE_PATTERN.test(n)) : [];
    const problems: string[] = [];
    for (const [name, content] of expected) {
      if (!present.includes(name)) problems.push(`missing: schemas/${name}`);
      else if (fs.readFileSync(path.join(DIR, name), 'utf8') !== content) problems.push(`out of date: schemas/${name}`);
    }
    for (const name of present) if (!expected.has(name)) problems.push(`stale (no such method): schemas/${name}`);
    if (problems.length) {
      throw new Error(`schemas/ does not match the method registry. Run \`npm run schemas\` and commit the result.\n- ${problems.join('\n- ')}`);
    }
  });

  test('every method has an input and an output file, each a compilable JSON Schema 2020-12 object schema ending in a newline', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const m of ALL_METHODS) {
      for (const io of ['input', 'output']) {
        const file = path.join(DIR, `${m.name}.${io}.json`);
        const text = fs.readFileSync(file, 'utf8');
        expect(text.endsWith('}\n')).toBe(true);
        const schema = JSON.parse(text);
        expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
        expect(schema.type).toBe('object');
        expect(() => ajv.compile(schema)).not.toThrow();
      }
    }
  });

  test('when docs/methods.md differs from the registry, then this fails and says to run npm run schemas', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'methods.md'), 'utf8');
    if (committed !== methodsReference(ALL_METHODS))
      throw new Error('docs/methods.md does not match the method registry. Run `npm run schemas` and commit it.');
    // Every method has its row.
    for (const m of ALL_METHODS) expect(committed).toContain(`| \`${m.name}\` |`);
  });

  test('when docs/configuration.md differs from src/config.ts, then this fails and says to run npm run schemas', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    if (committed !== configurationReference()) throw new Error('docs/configuration.md does not match src/config.ts. Run `npm run schemas` and commit it.');
    // Every setting has its row, with the default the service really starts with (machine-dependent ones in words).
    const defaults = testConfig() as Record<string, unknown>;
    for (const name of Object.keys(CONFIG_FIELDS.shape)) {
      const row = committed.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      expect(row).toBeDefined();
      const shown = row!.split(' | ')[1]!;
      const value = defaults[name];
      // Unset, or a default the code computes (the key's thumbprint) written in words.
      if (value === undefined) expect(shown === 'unset' || !shown.startsWith('`')).toBe(true);
      else if (typeof value === 'number' || typeof value === 'string') {
        if (shown.startsWith('`')) expect(shown).toBe(`\`${value}\``);
      }
    }
  });

  test('when a setting has no description, then the configuration reference refuses to be written', () => {
    const { z } = jest.requireActual<typeof import('zod')>('zod');
    expect(() => configurationReference(z.object({ UNDESCRIBED: z.string().default('x') }))).toThrow(/UNDESCRIBED has no description/);
  });

  test('when docs/rate-limits.md differs from the registry and src/config.ts, then this fails and says to run npm run schemas', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'rate-limits.md'), 'utf8');
    if (committed !== rateLimitsReference(ALL_METHODS))
      throw new Error('docs/rate-limits.md does not match the registry and src/config.ts. Run `npm run schemas` and commit it.');
    // Every method outside the api class is named in its class's row, with the budget the limiter really starts with.
    const limits = limitsFromConfig(loadConfig({}));
    for (const m of ALL_METHODS.filter((x) => x.limit !== 'api')) {
      const row = committed.split('\n').find((l) => l.startsWith(`| \`${m.limit}\` |`));
      expect(row).toContain(`\`${m.name}\``);
      expect(row).toContain(`| ${limits[m.limit]} a minute`);
    }
    expect(committed).toContain(`every other method (${ALL_METHODS.filter((x) => x.limit === 'api').length})`);
  });

  test('when the toolset table of docs/surfaces.md differs from src/registry/toolsets.ts, then this fails and says to run npm run schemas', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'surfaces.md'), 'utf8');
    if (committed !== withToolsetsTable(committed, ALL_METHODS))
      throw new Error('The toolset table of docs/surfaces.md does not match the registry. Run `npm run schemas` and commit it.');
    // Every toolset has its row, and each tool of a set is named in that row (independently: the methods marked with it).
    const listings = toolsetListings(ALL_METHODS);
    expect(listings.map((l) => l.name)).toEqual(['default', ...TOOLSET_NAMES, 'all']);
    for (const name of TOOLSET_NAMES) {
      const row = committed.split('\n').find((line) => line.startsWith(`| \`/mcp/x/${name}\` |`));
      expect(row).toBeDefined();
      for (const m of ALL_METHODS.filter((x) => x.toolset === name && x.auth !== 'session' && !x.hiddenFrom?.includes('mcp'))) {
        expect(row).toContain(`\`${m.name.replace(/[^a-zA-Z0-9_-]/g, '_')}\``);
      }
    }
    const all = listings.find((l) => l.name === 'all')!;
    expect(all.tools.length).toBe(listings.filter((l) => l.name !== 'all' && l.name !== 'default').reduce((n, l) => n + l.tools.length, 0));
  });
});
