/**
 * Writes the registry's OpenAPI document to a file (default dist/openapi.json) without starting a server:
 * `npm run build` feeds it to openapi-typescript, which writes web/src/lib/api/schema.d.ts.
 * test/web/client-schema-drift.test.ts fails when the committed schema.d.ts no longer matches it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { webClientOpenApiJson } from '../src/documents/web-client-openapi';

const target = path.resolve(process.argv[2] ?? 'dist/openapi.json');
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, webClientOpenApiJson());
process.stdout.write(`OpenAPI document written to ${path.relative(process.cwd(), target)}\n`);
