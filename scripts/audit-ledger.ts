import 'reflect-metadata';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { openDatabase } from '../src/db/database';
import { auditLedger } from '../src/domain/audit/ledger-audit';

/** `npm run audit:ledger`: checks every money invariant of the configured database; exits 1 on any violation. */
async function main(): Promise<void> {
  const config = loadConfig();
  const db = await openDatabase(config, createLogger('warn'));
  try {
    const report = await auditLedger(db);
    for (const v of report.violations) process.stdout.write(`VIOLATION ${v}\n`);
    process.stdout.write(
      `${JSON.stringify({
        accounts: report.accounts,
        positions: report.positions,
        pools: report.pools,
        transfers: report.transfers,
        venueCash: report.venueCashMicro.toString(),
        violations: report.violations.length,
      })}\n`,
    );
    process.exitCode = report.violations.length ? 1 : 0;
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  process.stderr.write(`audit failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
