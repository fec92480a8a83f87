import { scriptOnTree } from '../support/script-tree';

/** `npm run lint` runs scripts/check-imports.js: an import cycle or an upward import fails it, type-only ones too. */
describe('scripts/check-imports.js', () => {
  const { write, check, dir: tree } = scriptOnTree('check-imports.js', 'check-imports-');

  it('when the layers read top-down with no loop, it passes', () => {
    write({
      'main.ts': "import { app } from './http/app';\nexport const main = app;\n",
      'http/app.ts': "import { invoke } from '../registry/invoke';\nexport const app = invoke;\n",
      'registry/invoke.ts': "import type { Db } from '../db/database';\nexport const invoke = (db: Db) => db;\n",
      'db/database.ts': 'export type Db = { q: string };\n',
    });
    const r = check(tree());
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('no import cycle, every import points down the layers');
    expect(r.status).toBe(0);
  });

  it('when the registry imports the composition root by type only, the loop and the upward import fail it', () => {
    write({
      'services.ts': "import type { Ctx } from './registry/context';\nexport interface Services { ctx?: Ctx }\n",
      'registry/context.ts': "import type { Services } from '../services';\nexport interface Ctx { services: Services }\n",
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/import cycle: .*registry\/context\.ts.*services\.ts/);
    expect(r.stderr).toContain('upward import: registry/context.ts (registry) imports services.ts (services)');
  });

  it('when the domain imports http without a loop, the upward import fails it', () => {
    write({
      'domain/trade.ts': "import { status } from '../http/status';\nexport const trade = status;\n",
      'http/status.ts': 'export const status = 200;\n',
    });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/^import cycle:/m);
    expect(r.stderr).toContain('upward import: domain/trade.ts (domain) imports http/status.ts (http)');
  });

  it('when a file sits outside every layer, it fails until the file is placed', () => {
    write({ 'misc/helper.ts': 'export const x = 1;\n' });
    const r = check(tree());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no layer for misc/helper.ts');
  });

  it('src/ itself has no import cycle and no upward import', () => {
    const r = check('src');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^src: \d+ files, no import cycle, every import points down the layers$/m);
    expect(r.status).toBe(0);
  }, 60_000);
});
