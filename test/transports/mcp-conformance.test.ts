import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { backends } from '../support/backends';
import { startTestApp, type TestApp } from '../support/app';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12: the first line with the
 * 2026-07-28 scenarios; 0.1.x knows only 2025) run by its CLI against the live service, with the scenario sets
 * that the 2026-07-28 and 2025-11-25 revisions require (`--requirements`). The suite drives a reference
 * "everything server": many scenarios call fixture tools (test_simple_text, test_tool_with_progress…) or features
 * this service does not offer (prompts, resources, completions, logging, sampling, elicitation, tasks). Those are
 * listed below with the reason; every other scenario, and every other check of a partly applicable one, must pass.
 * The transport does not depend on the database, so this runs on the first backend only.
 */

const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
const NODE20_SHIM = pathToFileURL(path.join(__dirname, '../support/conformance/node20.mjs')).href;

const fixture = (tools: string) => `drives the reference server's fixture tool ${tools}; this service's tools are its registry methods`;
const NO_PROMPTS = 'the service offers no prompts (prompts/* answers -32601, the capability is not declared)';
const NO_RESOURCES = 'the service offers no resources (resources/* answers -32601, the capability is not declared)';
const NO_INPUT = 'no tool asks the client for input: the service uses no elicitation, sampling or roots, in either era';

const NOT_APPLICABLE_2026: Record<string, string> = {
  'completion-complete': 'the service offers no completions (no prompts or resource templates to complete)',
  'tools-call-simple-text': fixture('test_simple_text'),
  'tools-call-image': fixture('test_image_content') + ' (every tool answers one text block and structuredContent)',
  'tools-call-audio': fixture('test_audio_content'),
  'tools-call-embedded-resource': fixture('test_embedded_resource'),
  'tools-call-mixed-content': fixture('test_multiple_content_types'),
  'tools-call-error': fixture('test_error_handling') + ' (tool errors as isError results: test/transports/mcp.test.ts)',
  'tools-call-with-progress': fixture('test_tool_with_progress') + '; no tool reports progress',
  'resources-list': NO_RESOURCES,
  'resources-read-text': NO_RESOURCES,
  'resources-read-binary': NO_RESOURCES,
  'resources-templates-read': NO_RESOURCES,
  'sep-2164-resource-not-found': NO_RESOURCES,
  'prompts-list': NO_PROMPTS,
  'prompts-get-simple': NO_PROMPTS,
  'prompts-get-with-args': NO_PROMPTS,
  'prompts-get-embedded-resource': NO_PROMPTS,
  'prompts-get-with-image': NO_PROMPTS,
  'json-schema-2020-12': fixture('json_schema_2020_12_tool') + ' (pending in the suite; our schemas are draft 2020-12 from zod)',
  'http-custom-header-server-validation': 'no tool declares an x-mcp-header parameter, so there are no Mcp-Param-* headers to validate (pending in the suite)',
  ...Object.fromEntries(
    [
      'basic-elicitation',
      'basic-sampling',
      'basic-list-roots',
      'request-state',
      'multiple-input-requests',
      'multi-round',
      'missing-input-response',
      'non-tool-request',
      'result-type',
      'unsupported-methods',
      'tampered-state',
      'capability-check',
      'ignore-extra-params',
      'validate-input',
    ].map((s) => [`input-required-result-${s}`, NO_INPUT]),
  ),
  ...Object.fromEntries(
    [
      'lifecycle',
      'capability-negotiation',
      'wire-fields',
      'request-state-removal',
      'mrtr-input',
      'request-headers',
      'dispatch-and-envelope',
      'status-notifications',
      'required-task-error',
      'mrtr-composition',
    ].map((s) => [`tasks-${s}`, 'the tasks extension (io.modelcontextprotocol/tasks) is not offered; not scored for 2026-07-28']),
  ),
};

const NOT_APPLICABLE_2025: Record<string, string> = {
  'completion-complete': NOT_APPLICABLE_2026['completion-complete']!,
  'logging-set-level': 'the service declares no logging capability (deprecated in 2026-07-28)',
  'tools-call-with-logging': fixture('test_tool_with_logging') + '; no logging capability',
  'tools-call-sampling': fixture('test_sampling') + '; the service never asks the client for sampling',
  'tools-call-elicitation': fixture('test_elicitation') + '; the service never elicits',
  'elicitation-sep1034-defaults': fixture('test_elicitation_sep1034_defaults') + '; the service never elicits',
  'elicitation-sep1330-enums': fixture('test_elicitation_sep1330_enums') + '; the service never elicits',
  'server-session-lifecycle': 'the server is stateless: it issues no Mcp-Session-Id, so there is no session lifecycle (the suite says so itself)',
  'server-sse-multiple-streams': 'the 2025 variant needs a session id (the suite only warns without one); the 2026-07-28 variant runs and passes',
  'server-sse-polling': 'answers are JSON, never SSE streams to resume (SEP-1699 priming and polling), and there is no session',
  'resources-subscribe': NO_RESOURCES,
  'resources-unsubscribe': NO_RESOURCES,
  ...Object.fromEntries(
    Object.entries(NOT_APPLICABLE_2026).filter(
      ([s]) => s.startsWith('tools-call-') || s.startsWith('resources-') || s.startsWith('prompts-') || s === 'json-schema-2020-12',
    ),
  ),
};

/** Checks of applicable scenarios that need a fixture or a feature the service does not have. */
const NOT_APPLICABLE_CHECKS: Record<string, Record<string, string>> = {
  'server-stateless': {
    'sep-2575-server-rejects-undeclared-capability': fixture('test_missing_capability') + '; no tool needs a client capability',
    'sep-2575-missing-capability-http-400': fixture('test_missing_capability') + '; no tool needs a client capability',
    'sep-2575-http-server-no-independent-requests-on-stream': fixture('test_streaming_elicitation') + '; the service never streams requests to the client',
    'sep-2575-server-no-log-without-loglevel': fixture('test_logging_tool') + '; the service emits no log notifications at all',
  },
  caching: {
    'sep-2549-prompts-list-caching-hints': NO_PROMPTS,
    'sep-2549-resources-list-caching-hints': NO_RESOURCES,
    'sep-2549-resources-templates-list-caching-hints': NO_RESOURCES,
  },
};

/** The scenarios that apply: they must have run, and pass. */
const APPLICABLE: Record<string, string[]> = {
  '2026-07-28': ['server-stateless', 'tools-list', 'caching', 'http-header-validation', 'dns-rebinding-protection', 'server-sse-multiple-streams'],
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
};
const NOT_APPLICABLE: Record<string, Record<string, string>> = { '2026-07-28': NOT_APPLICABLE_2026, '2025-11-25': NOT_APPLICABLE_2025 };

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs the CLI's server scenarios for one revision; resolves to the checks of each scenario it ran. */
async function runSuite(url: string, revision: string, outDir: string): Promise<Map<string, Check[]>> {
  const args = ['--import', NODE20_SHIM, CLI, 'server', '--url', url, '--requirements', revision, '--timeout', '15000', '--output-dir', outDir];
  const output: string[] = [];
  await new Promise<void>((resolve, reject) => {
    // NODE_OPTIONS would hand jest's --experimental-vm-modules to the CLI.
    const child = spawn(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.stdout.on('data', (b: Buffer) => output.push(b.toString()));
    child.stderr.on('data', (b: Buffer) => output.push(b.toString()));
    child.on('error', reject);
    // The exit status counts the scenarios that do not apply: the checks below decide.
    child.on('close', (_code, signal) => {
      clearTimeout(killer);
      if (signal) reject(new Error(`conformance CLI ended by ${signal}:\n${output.join('').slice(-2000)}`));
      else resolve();
    });
  });
  const results = new Map<string, Check[]>();
  for (const dir of await readdir(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(dir)?.[1];
    if (!scenario) continue;
    results.set(scenario, JSON.parse(await readFile(path.join(outDir, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  if (results.size === 0) throw new Error(`conformance CLI wrote no results:\n${output.join('').slice(-2000)}`);
  return results;
}

describe.each(backends().slice(0, 1))('MCP conformance suite against the live service on $name', (backend) => {
  let t: TestApp;
  let outRoot: string;

  beforeAll(async () => {
    t = await startTestApp(backend, { listen: true });
    outRoot = await mkdtemp(path.join(os.tmpdir(), 'mcp-conformance-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(outRoot, { recursive: true, force: true });
  });

  // The default tool list and every tool (issue 51 item 1: toolsets are chosen by address).
  const RUNS = Object.keys(APPLICABLE).flatMap((revision) => ['/mcp', '/mcp/x/all'].map((address) => [revision, address] as const));
  test.each(RUNS)('when the scenarios that %s requires run against %s, then every one that applies passes', async (revision, address) => {
    const results = await runSuite(`${t.baseUrl}${address}`, revision, path.join(outRoot, `${revision}${address.replace(/\//g, '-')}`));
    const notApplicable = NOT_APPLICABLE[revision]!;
    expect([...results.keys()]).toEqual(expect.arrayContaining(APPLICABLE[revision]!));

    const problems: string[] = [];
    for (const [scenario, checks] of results) {
      if (notApplicable[scenario]) continue;
      if (!APPLICABLE[revision]!.includes(scenario)) problems.push(`${scenario}: a scenario this test does not know; decide whether it applies`);
      for (const check of checks) {
        if (check.status !== 'FAILURE' || NOT_APPLICABLE_CHECKS[scenario]?.[check.id]) continue;
        problems.push(`${scenario} / ${check.id}: ${check.errorMessage ?? 'failed'}`);
      }
      if (!checks.some((c) => c.status === 'SUCCESS')) problems.push(`${scenario}: no check passed`);
    }
    expect(problems).toEqual([]);
  });
});
