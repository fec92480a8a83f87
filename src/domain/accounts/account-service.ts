import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../errors/app-error';
import { generateApiKey, hashSecret } from '../../auth/api-keys';
import { hashPassword } from '../../auth/passwords';
import { together, type Database, type Queryable } from '../../db/database';
import { cashOf, credit, openCash, STARTING_BALANCE_MICRO } from '../ledger/cash';
import { openTrackFigures } from '../track-record/track-figures';
import { GRANTS } from '../ledger/accounts';
import { fromMicro } from '../money/micro';

export interface Registration {
  email: string;
  password: string;
  displayName: string;
  referralCode?: string;
  isAgent: boolean;
  agentDescription?: string;
  /**
   * Set only by a replay run for its own account (src/replay/run-host.ts): a fixed id, so the benchmark record's intervals
   * (seeded by the account) come out the same when a scenario is replayed, and its starting bankroll.
   */
  id?: string;
  startingBalanceMicro?: bigint;
}

export interface RegisteredAccount {
  id: string;
  email: string;
  displayName: string;
  balance: number;
  isAgent: boolean;
  referralCode: string;
  apiKey?: string;
}

export interface AccountProfile {
  id: string;
  email: string;
  displayName: string;
  isAgent: boolean;
  balance: number;
  /** Cash held by resting buy orders. */
  reserved: number;
  /** balance − reserved: what a trade or order may spend. */
  available: number;
  referralCode: string;
  createdAt: string;
}

/** Hooks other areas attach to account creation, run inside its transaction (referral rewards). */
export type RegistrationHook = (tx: Queryable, account: { id: string; referredBy: string | null; at: Date }) => Promise<void>;

const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function referralCode(): string {
  const bytes = randomBytes(8);
  return Array.from(bytes, (b) => REFERRAL_ALPHABET[b % REFERRAL_ALPHABET.length]).join('');
}

export class AccountService {
  private readonly hooks: RegistrationHook[] = [];
  private readonly registered: Array<() => void> = [];

  constructor(private readonly db: Database) {}

  onRegister(hook: RegistrationHook): void {
    this.hooks.push(hook);
  }

  /** Called after a registration has committed. */
  onRegistered(listener: () => void): void {
    this.registered.push(listener);
  }

  async register(input: Registration, now: Date): Promise<RegisteredAccount> {
    const email = input.email.trim();
    const passwordHash = await hashPassword(input.password);
    const apiKey = input.isAgent ? generateApiKey() : undefined;
    const id = input.id ?? randomUUID();
    const grant = input.startingBalanceMicro ?? STARTING_BALANCE_MICRO;
    const code = referralCode();
    try {
      const account = await this.db.transaction(async (tx) => {
        let referredBy: string | null = null;
        if (input.referralCode) {
          const ref = await tx.query<{ id: string }>('SELECT id FROM users WHERE referral_code = $1', [input.referralCode.trim().toUpperCase()]);
          if (!ref[0])
            throw new AppError('VALIDATION_ERROR', 'referralCode does not name an existing user.', {
              hint: 'Omit referralCode or use a code from an existing account.',
            });
          referredBy = ref[0].id;
        }
        await tx.query(
          `INSERT INTO users (id, email, password_hash, display_name, is_agent, agent_description, referral_code, referred_by, api_key_hash, created_at, last_active_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
          [
            id,
            email,
            passwordHash,
            input.displayName.trim(),
            input.isAgent,
            input.agentDescription ?? null,
            code,
            referredBy,
            apiKey ? hashSecret(apiKey) : null,
            now,
          ],
        );
        // The account's cash and its track record have rows of their own, each opened by its owner.
        await together(openCash(tx, id), openTrackFigures(tx, id));
        await credit(tx, { userId: id, counter: GRANTS, type: 'grant', amountMicro: grant, ref: 'registration', at: now });
        for (const hook of this.hooks) await hook(tx, { id, referredBy, at: now });
        return {
          id,
          email,
          displayName: input.displayName.trim(),
          balance: fromMicro(grant),
          isAgent: input.isAgent,
          referralCode: code,
          ...(apiKey ? { apiKey } : {}),
        };
      });
      for (const l of this.registered) l();
      return account;
    } catch (err) {
      if ((err as { code?: string }).code === '23505' && /email/.test(String((err as { constraint?: string }).constraint ?? (err as Error).message))) {
        throw emailTaken();
      }
      throw err;
    }
  }

  /** The account's own record (the caller's: email included). */
  async profile(userId: string): Promise<AccountProfile> {
    const rows = await this.db.query<{
      id: string;
      email: string;
      display_name: string;
      is_agent: boolean;
      balance_micro: bigint;
      reserved_micro: bigint;
      referral_code: string;
      created_at: Date;
    }>(
      `SELECT u.id, u.email, u.display_name, u.is_agent, c.balance_micro, c.reserved_micro, u.referral_code, u.created_at
       FROM users u JOIN cash_balances c ON c.user_id = u.id WHERE u.id = $1`,
      [userId],
    );
    const r = rows[0];
    if (!r) throw new AppError('NOT_FOUND', 'Account not found.');
    return {
      id: r.id,
      email: r.email,
      displayName: r.display_name,
      isAgent: r.is_agent,
      balance: fromMicro(r.balance_micro),
      reserved: fromMicro(r.reserved_micro),
      available: fromMicro(r.balance_micro - r.reserved_micro),
      referralCode: r.referral_code,
      createdAt: new Date(r.created_at).toISOString(),
    };
  }

  async emailExists(email: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [email.trim()]);
    return rows.length > 0;
  }

  async balance(userId: string): Promise<number> {
    return (await this.cash(userId)).balance;
  }

  /** Cash, what resting buy orders reserve of it, and the rest, available to trade (balance = reserved + available). */
  async cash(userId: string): Promise<{ balance: number; reserved: number; available: number }> {
    const c = await cashOf(this.db, userId);
    if (!c) throw new AppError('NOT_FOUND', 'Account not found.');
    return { balance: fromMicro(c.balanceMicro), reserved: fromMicro(c.reservedMicro), available: fromMicro(c.balanceMicro - c.reservedMicro) };
  }

  /**
   * Marks the account as the benchmark's reference forecaster of `kind` (migration 31: 'market', 'coin_flip',
   * 'favourite'); false when another account already is.
   */
  async markReference(userId: string, kind: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `WITH r AS (UPDATE users SET reference = $2 WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM users WHERE reference = $2) RETURNING id) SELECT id FROM r`,
      [userId, kind],
    );
    return rows.length === 1;
  }

  /** Replaces an agent's API key; the old one stops working when this commits. */
  async rotateApiKey(userId: string): Promise<string> {
    const apiKey = generateApiKey();
    // A bare UPDATE … RETURNING comes back from TypeORM as [rows, count]: select from a CTE to get plain rows.
    const rows = await this.db.query<{ id: string }>(
      'WITH r AS (UPDATE users SET api_key_hash = $2 WHERE id = $1 AND is_agent RETURNING id) SELECT id FROM r',
      [userId, hashSecret(apiKey)],
    );
    if (!rows[0]) throw new AppError('FORBIDDEN', 'Only agent accounts have API keys.');
    return apiKey;
  }
}

export function emailTaken(): AppError {
  return new AppError('EMAIL_TAKEN', 'This email is already registered.', { hint: 'Use another email, or sign in to the existing account.' });
}
