import { testConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { startService } from '../src/start';
import { randomBytes } from 'node:crypto';
import { callAs, type AgentDeps } from '../src/transports/reference-forecasters';

/**
 * A service of a script's own, in memory, with limits no in-process agent meets (the script's agents are its only
 * callers) and no reference forecasters of its own, on the simulated venue sealed by `simSecret`; with the deps its
 * agents call the registry by (replay-reference.ts, leak-probe.ts).
 */
export async function startOwnService(simSecret: string, opts: { validateOutput: boolean }) {
  const config = testConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_REGISTER_PER_MIN: 1_000_000,
    RATE_LIMIT_API_PER_MIN: 1_000_000,
    RATE_LIMIT_TRADE_PER_MIN: 1_000_000,
    RATE_LIMIT_SELL_PER_MIN: 1_000_000,
    REFERENCE_FORECASTERS: 'off',
    SIM_SECRET: simSecret,
  });
  const log = createLogger('silent');
  const service = await startService(config, log, { background: false, webDir: null, validateOutput: opts.validateOutput });
  const { services } = service;
  const deps: AgentDeps = {
    services,
    clock: services.clock,
    log,
    validateOutput: opts.validateOutput,
    registry: services.registry,
    origin: 'http://localhost',
  };
  return { service, services, log, deps };
}

/** Registers the script's one agent on its own service (a throwaway password: the API key is what it calls with). */
export async function registerScriptAgent(deps: AgentDeps, who: { email: string; displayName: string; description: string }): Promise<string> {
  const registered = (await callAs(deps, undefined, 'register_account', {
    email: who.email,
    password: randomBytes(24).toString('hex'),
    displayName: who.displayName,
    isAgent: true,
    agentDescription: who.description,
  })) as { user: { apiKey: string } };
  return registered.user.apiKey;
}
