import fs from 'node:fs';
import { builtServicePaths, runSoak } from '../../bench/support/soak';
import { POSTGRES_SKIP_REASON } from '../support/backends';

/**
 * The soak, short (CI): the built service under mixed agents on all three transports while its database
 * connections are terminated half way. It lives on, clients see answers or 503s (never another 5xx or a reset
 * connection), and the ledger audit is green. `npm run bench:soak` is the long run, with the memory figures.
 */
const built = Object.values(builtServicePaths()).every((p) => fs.existsSync(p));
const skip = !process.env.TEST_DATABASE_URL ? POSTGRES_SKIP_REASON : !built ? 'the service is not built (npm run build)' : undefined;
const describeSoak = skip ? (title: string, body: () => void) => describe.skip(`${title} (skipped: ${skip})`, body) : describe;

describeSoak('a short soak on postgres', () => {
  test('when agents trade over REST, JSON-RPC and MCP and the database connections drop, then the service lives on, nothing but 503 fails, and the ledger balances', async () => {
    const f = await runSoak({ database: 'postgres', idleSeconds: 3, loadSeconds: 16, agents: 4, adminUrl: process.env.TEST_DATABASE_URL });
    process.stdout.write(`short soak: ${JSON.stringify(f)}\n`);
    expect(f.fault.serviceAlive).toBe(true);
    expect(f.requests.failed).toBe(0);
    expect(f.requests.ok).toBeGreaterThan(100);
    for (const n of Object.values(f.transports)) expect(n).toBeGreaterThan(10);
    expect(f.auditViolations).toBe(0);
  }, 120_000);
});
