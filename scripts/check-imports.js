#!/usr/bin/env node
// The import check of `npm run lint`: no import cycle under src/, and every import points down the layers
// below. madge builds the graph with type-only imports included (eslint-plugin-import's no-cycle skips
// `import type`, yet a type loop still ties the layers together). Usage: node scripts/check-imports.js [dir]
const path = require('node:path');
const fs = require('node:fs');

/**
 * The layers of src/, top to bottom (DESIGN.md: entry → http → transports → registry → domain → db). A file
 * may import its own layer and any layer below it, never one above. Paths are relative to src/; a path ending
 * in "/" is a folder.
 */
const LAYERS = [
  // The process: main.ts reads the config and listens; start.ts assembles the service.
  { name: 'entry', paths: ['main.ts', 'start.ts'] },
  // The express app, its hardening, the page routes (http/pages/) and the OAuth endpoints.
  { name: 'http', paths: ['http/'] },
  // Replay runs: each run is a service graph of its own (createServices on the run's database), so this sits above the root.
  { name: 'replay', paths: ['replay/'] },
  // The composition root: builds the services every layer below implements.
  { name: 'services', paths: ['services.ts'] },
  // The surfaces generated from the registry: REST, JSON-RPC, MCP, A2A and the documents (OpenAPI, agent card, llms.txt).
  { name: 'surfaces', paths: ['transports/', 'documents/'] },
  // The method registry, its invoke pipeline, and the method declarations.
  { name: 'registry', paths: ['registry/', 'methods/'] },
  // A2A tasks (orders seen as tasks) and the delivery of their push notifications; the A2A transport builds on it.
  { name: 'a2a-tasks', paths: ['a2a-tasks/'] },
  // Market data implements the domain's price source (domain/trading/price-service.ts).
  { name: 'market-data', paths: ['market-data/'] },
  // Webhook delivery: the worker that sends account events to registered URLs, and the service its methods call.
  { name: 'webhooks', paths: ['webhooks/'] },
  { name: 'domain', paths: ['domain/'] },
  // Credentials, sessions, tokens and the authenticator; the domain's accounts hash passwords and keys with it.
  { name: 'auth', paths: ['auth/'] },
  { name: 'limits', paths: ['limits/'] },
  { name: 'outbound', paths: ['outbound/'] },
  { name: 'db', paths: ['db/'] },
  { name: 'base', paths: ['errors/', 'config.ts', 'logger.ts', 'clock.ts'] },
];

/** Upward imports allowed on purpose, each with its reason. Keep this short. */
const ALLOWED_UPWARD = [
  {
    from: 'methods/agents.ts',
    to: 'documents/agent-card.ts',
    why: 'get_agent_card returns the agent card document, which is built from the registry (no cycle: the card reads only registry types)',
  },
];

function layerOf(file) {
  const i = LAYERS.findIndex((l) => l.paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  return i < 0 ? null : i;
}

/** Cycles and layer violations of the TypeScript files under `dir`. */
async function checkImports(dir) {
  // madge's TypeScript parser warns that its own reading of `import('x')` types is deprecated: not ours to fix.
  process.noDeprecation = true;
  const madge = require('madge');
  const tsConfig = path.join(process.cwd(), 'tsconfig.json');
  const graph = await madge(dir, {
    fileExtensions: ['ts'],
    tsConfig: fs.existsSync(tsConfig) ? tsConfig : undefined,
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  const cycles = graph.circular();
  const deps = graph.obj();
  const unplaced = [];
  const upward = [];
  for (const [from, targets] of Object.entries(deps)) {
    const a = layerOf(from);
    if (a === null) unplaced.push(from);
    for (const to of targets) {
      const b = layerOf(to);
      if (a === null || b === null || b >= a) continue;
      if (ALLOWED_UPWARD.some((x) => x.from === from && x.to === to)) continue;
      upward.push(`${from} (${LAYERS[a].name}) imports ${to} (${LAYERS[b].name})`);
    }
  }
  return { files: Object.keys(deps).length, cycles, upward, unplaced };
}

if (require.main === module) {
  const dir = process.argv[2] ?? 'src';
  checkImports(dir).then(
    ({ files, cycles, upward, unplaced }) => {
      for (const c of cycles) console.error(`import cycle: ${c.join(' > ')} > ${c[0]}`);
      for (const u of upward) console.error(`upward import: ${u}`);
      for (const f of unplaced) console.error(`no layer for ${f}: place it in LAYERS (scripts/check-imports.js)`);
      const problems = cycles.length + upward.length + unplaced.length;
      if (problems) {
        console.error(`${dir}: ${cycles.length} import cycles, ${upward.length} upward imports, ${unplaced.length} files without a layer`);
        process.exit(1);
      }
      console.log(`${dir}: ${files} files, no import cycle, every import points down the layers`);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

module.exports = { checkImports, LAYERS };
