import { randomBytes } from 'node:crypto';
import type { Config } from '../../config';
import type { Database } from '../../db/database';
import { SECRET_BYTES } from './venue-seal';

/**
 * The venue's master secret: SIM_SECRET when configured, else the one kept in the database. The first process to start
 * writes a fresh random one; the insert does nothing when a row is there, so every process reads the same secret.
 */
export async function venueMasterSecret(config: Config, db: Database): Promise<string> {
  if (config.SIM_SECRET !== undefined) return config.SIM_SECRET.toLowerCase();
  await db.query(`INSERT INTO venue_secret (secret) VALUES ($1) ON CONFLICT (one) DO NOTHING`, [randomBytes(SECRET_BYTES).toString('hex')]);
  const [row] = await db.query<{ secret: string }>(`SELECT secret FROM venue_secret`);
  return row!.secret;
}

/** The master secret of a config whose SIM_SECRET startService resolved (venueMasterSecret). */
export function masterSecretOf(config: Config): Buffer {
  if (config.SIM_SECRET === undefined) throw new Error('SIM_SECRET is unresolved: startService resolves it (venueMasterSecret) before building services');
  return Buffer.from(config.SIM_SECRET, 'hex');
}
