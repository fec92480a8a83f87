import 'reflect-metadata';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { McpServer, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startService } from '../src/start';
import { onSurface } from '../src/registry/method';
import { median, round } from './support/harness';
import { processCpuMs } from './support/cpu-time';
import { benchSetting } from './support/smoke';

/**
 * npm run bench:mcp — what the stateless MCP transport costs per call. The service runs in this process
 * (DATABASE_URL if set, else in-memory PGlite) on a loopback port; one agent calls get_balance N times over
 * REST, then N times as an MCP tools/call in the 2025 form (a bare request), then N times in the 2026-07-28 form
 * (the `_meta` envelope and the Mcp-Method/Mcp-Name headers, served by the SDK's createMcpHandler), sequentially
 * on keep-alive connections, alternating in ROUNDS rounds (median of the per-round means). Then, without HTTP,
 * the per-request setup alone: our low-level Server with two handlers + transport, against McpServer
 * re-registering every tool per request.
 * Last line: one JSON object with every figure.
 */
const N = benchSetting('BENCH_N', 2000, 100);
const ROUNDS = benchSetting('BENCH_ROUNDS', 5, 1);
const SETUPS = benchSetting('BENCH_SETUPS', 2000, 100);

async function timeEach(n: number, call: () => Promise<void>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i += 1) await call();
  return (performance.now() - start) / n;
}

async function main(): Promise<void> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Without DATABASE_URL, a data directory of its own, which starts as a copy of the build's migrated template as `npm
  // start`'s does: an in-memory PGlite ran initdb and every migration first (seconds of CPU that are no call's cost).
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-'));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: process.env.DATABASE_URL ? undefined : path.join(dataDir, 'data'),
    BASE_URL: baseUrl,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_API_PER_MIN: '100000000',
    RATE_LIMIT_REGISTER_PER_MIN: '1000',
  });
  const service = await startService(config, createLogger('warn'), { background: false });
  server.on('request', service.app);
  try {
    const reg = await fetch(`${baseUrl}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `bench-mcp-${Date.now()}@example.com`, password: 'password123', displayName: 'BenchMcp', isAgent: true }),
    });
    const key = ((await reg.json()) as { user: { apiKey: string } }).user.apiKey;
    const auth = `Bearer ${key}`;
    const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balance', arguments: {} } });
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const modernBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balance', arguments: {}, _meta: envelope } });

    const rest = async () => {
      const r = await fetch(`${baseUrl}/api/user/balance`, { headers: { authorization: auth } });
      if (r.status !== 200) throw new Error(`REST ${r.status}`);
      await r.arrayBuffer();
    };
    const mcp = async () => {
      const r = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: mcpBody,
      });
      const body = (await r.json()) as { result?: { isError?: boolean } };
      if (r.status !== 200 || !body.result || body.result.isError) throw new Error(`MCP ${r.status} ${JSON.stringify(body)}`);
    };
    const mcp2026 = async () => {
      const r = await fetch(`${baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'get_balance',
        },
        body: modernBody,
      });
      const body = (await r.json()) as { result?: { isError?: boolean } };
      if (r.status !== 200 || !body.result || body.result.isError) throw new Error(`MCP 2026 ${r.status} ${JSON.stringify(body)}`);
    };

    await timeEach(200, rest);
    await timeEach(200, mcp);
    await timeEach(200, mcp2026);
    const restMs: number[] = [];
    const mcpMs: number[] = [];
    const mcp2026Ms: number[] = [];
    // CPU time of this process (server and client) per call: steadier than wall time on a busy machine.
    const cpu = { rest: [] as number[], mcp: [] as number[], mcp2026: [] as number[] };
    const measured = async (n: number, call: () => Promise<void>, cpuUs: number[]) => {
      const before = processCpuMs();
      const ms = await timeEach(n, call);
      cpuUs.push(((processCpuMs() - before) * 1000) / n);
      return ms;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      restMs.push(await measured(Math.ceil(N / ROUNDS), rest, cpu.rest));
      mcpMs.push(await measured(Math.ceil(N / ROUNDS), mcp, cpu.mcp));
      mcp2026Ms.push(await measured(Math.ceil(N / ROUNDS), mcp2026, cpu.mcp2026));
    }
    const cpuUs = { rest: round(median(cpu.rest), 0), mcp: round(median(cpu.mcp), 0), mcp2026: round(median(cpu.mcp2026), 0) };
    console.log(
      `CPU per call (server and client): REST ${cpuUs.rest} µs, MCP ${cpuUs.mcp} µs (${round(cpuUs.mcp / cpuUs.rest, 2)}×), MCP 2026-07-28 ${cpuUs.mcp2026} µs (${round(cpuUs.mcp2026 / cpuUs.rest, 2)}×)`,
    );
    const restMedian = median(restMs);
    const mcpMedian = median(mcpMs);
    const mcp2026Median = median(mcp2026Ms);
    console.log(`REST GET /api/user/balance      ${round(restMedian, 3)} ms/call (rounds: ${restMs.map((x) => round(x, 3)).join(', ')})`);
    console.log(`MCP tools/call get_balance      ${round(mcpMedian, 3)} ms/call (rounds: ${mcpMs.map((x) => round(x, 3)).join(', ')})`);
    console.log(`MCP 2026-07-28 tools/call       ${round(mcp2026Median, 3)} ms/call (rounds: ${mcp2026Ms.map((x) => round(x, 3)).join(', ')})`);
    console.log(`ratio MCP / REST                ${round(mcpMedian / restMedian, 2)}×, +${round((mcpMedian - restMedian) * 1000, 0)} µs per call`);
    console.log(`ratio MCP 2026-07-28 / REST     ${round(mcp2026Median / restMedian, 2)}×, +${round((mcp2026Median - restMedian) * 1000, 0)} µs per call`);

    // Per-request setup alone (no HTTP, no database): what each stateless request builds before dispatch.
    const methods = service.services.registry.methods.filter((m) => onSurface(m, 'mcp'));
    const validator = new AjvJsonSchemaValidator();
    const lowLevel = async () => {
      const s = new Server({ name: 'bench', version: '1.0.0' }, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: validator });
      s.setRequestHandler('tools/list', () => ({ tools: [] }));
      s.setRequestHandler('tools/call', () => ({ content: [] }));
      await s.connect(new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }));
      await s.close();
    };
    const perTool = async () => {
      const s = new McpServer({ name: 'bench', version: '1.0.0' });
      for (const m of methods) {
        s.registerTool(m.name, { description: m.description, inputSchema: m.input, outputSchema: m.output, annotations: m.annotations }, async () => ({
          content: [],
        }));
      }
      await s.connect(new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true }));
      await s.close();
    };
    await timeEach(200, lowLevel);
    await timeEach(200, perTool);
    const lowLevelUs = (await timeEach(SETUPS, lowLevel)) * 1000;
    const perToolUs = (await timeEach(SETUPS, perTool)) * 1000;
    console.log(`setup per request, Server + 2 handlers + transport        ${round(lowLevelUs, 1)} µs`);
    console.log(`setup per request, McpServer + registerTool × ${methods.length} tools    ${round(perToolUs, 1)} µs (before any tools/list schema conversion)`);

    console.log(
      JSON.stringify({
        bench: 'mcp-overhead',
        database: service.services.db.kind,
        n: N,
        rounds: ROUNDS,
        restMsPerCall: round(restMedian, 4),
        mcpMsPerCall: round(mcpMedian, 4),
        ratio: round(mcpMedian / restMedian, 3),
        mcpExtraUsPerCall: round((mcpMedian - restMedian) * 1000, 1),
        cpuUsPerCall: cpuUs,
        cpuRatio: round(cpuUs.mcp / cpuUs.rest, 3),
        mcp2026MsPerCall: round(mcp2026Median, 4),
        ratio2026: round(mcp2026Median / restMedian, 3),
        tools: methods.length,
        setupLowLevelUs: round(lowLevelUs, 2),
        setupMcpServerPerToolUs: round(perToolUs, 2),
      }),
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
