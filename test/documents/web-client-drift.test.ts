import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { webClientOpenApiJson } from '../../src/documents/web-client-openapi';

const ROOT = path.join(__dirname, '..', '..');
const COMMITTED = path.join(ROOT, 'web', 'src', 'lib', 'api', 'schema.d.ts');

describe("the web app's generated API client (web/src/lib/api/schema.d.ts)", () => {
  test('when the committed types differ from what openapi-typescript makes of the registry, then this fails and says to run npm run build', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-drift-'));
    try {
      const doc = path.join(dir, 'openapi.json');
      const out = path.join(dir, 'schema.d.ts');
      fs.writeFileSync(doc, webClientOpenApiJson());
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), doc, '-o', out], { stdio: 'ignore' });
      const expected = fs.readFileSync(out, 'utf8');
      const committed = fs.existsSync(COMMITTED) ? fs.readFileSync(COMMITTED, 'utf8') : '';
      if (committed !== expected) {
        throw new Error(
          'web/src/lib/api/schema.d.ts does not match the method registry. Run `npm run build` (or `npm run build:server && npm run build:client`) and commit the result.',
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the generated types name the operations the app calls', () => {
    const committed = fs.readFileSync(COMMITTED, 'utf8');
    for (const p of ['"/api/auth/register"', '"/api/auth/login"', '"/api/search"', '"/api/markets/{idOrSlug}"', '"/api/trade"', '"/api/positions"']) {
      expect(committed).toContain(p);
    }
  });
});
