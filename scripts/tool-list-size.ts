/**
 * Prints what tools/list weighs, in bytes of its JSON, by part (descriptions, input schemas, output schemas) and per
 * tool, heaviest first. Run after `npm run build:server`: `node dist/scripts/tool-list-size.js [--top N]`.
 */
import { buildRegistry } from '../src/methods';
import { buildMcpTools } from '../src/transports/mcp-tools';

const size = (v: unknown) => (v === undefined ? 0 : JSON.stringify(v).length);
const top = process.argv.includes('--top') ? Number(process.argv[process.argv.indexOf('--top') + 1]) : Infinity;
const { tools } = buildMcpTools(buildRegistry()).list;
const rows = tools.map((t) => ({
  name: t.name,
  total: size(t),
  description: size(t.description) + size(t.title),
  input: size(t.inputSchema),
  output: size(t.outputSchema),
}));
const sum = (k: 'total' | 'description' | 'input' | 'output') => rows.reduce((n, r) => n + r[k], 0);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`tools/list: ${kb(size({ tools }))} for ${tools.length} tools`);
console.log(`descriptions and titles ${kb(sum('description'))}, input schemas ${kb(sum('input'))}, output schemas ${kb(sum('output'))}`);
console.log('tool'.padEnd(28), 'total'.padStart(7), 'descr'.padStart(7), 'input'.padStart(7), 'output'.padStart(7));
for (const r of rows.sort((a, b) => b.total - a.total).slice(0, top)) {
  console.log(r.name.padEnd(28), ...[r.total, r.description, r.input, r.output].map((n) => String(n).padStart(7)));
}
