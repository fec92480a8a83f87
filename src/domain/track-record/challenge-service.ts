import type { Database } from '../../db/database';
import { AppError } from '../../errors/app-error';
import { credit } from '../ledger/cash';
import { REWARDS } from '../ledger/accounts';
import { fromMicro } from '../money/micro';
import { addXp } from './awards';
import { challengeAt, claimableChallenge, type ChallengeType, type DailyChallenge } from './challenges';

export interface ChallengeView {
  challenge: { id: string; title: string; description: string; type: ChallengeType; xpReward: number; cashReward: number; day: string; expiresAt: string };
  progress: { current: number; target: number; completed: boolean; claimed: boolean; percentComplete: number };
}

/** A day's challenge progress ($1 user, $2 day): the figures row keeps today's and the previous active day's. */
const PROGRESS_OF_DAY = `SELECT CASE WHEN day = $2::date THEN progress WHEN yday = $2::date THEN yday_progress END FROM track_figures WHERE user_id = $1`;

const units = (c: DailyChallenge, v: bigint) => (c.type === 'trade_volume' ? fromMicro(v) : Number(v));

/**
 * The daily challenge: progress is advanced by the trade listener in the trades' own transactions
 * (track_figures.progress); a claim pays the cash reward through the ledger and the XP in one transaction,
 * and a unique (user, challenge) row makes a second claim — racing or not — pay nothing.
 */
export class ChallengeService {
  /**
   * `onClaimed` runs after a claim has committed (its XP moves the claimer's level on the boards); `xpAdded` hears, inside
   * the claim's transaction, whose figures row took XP (the board folder copies it to the boards).
   */
  constructor(
    private readonly db: Database,
    private readonly onClaimed: () => void = () => {},
    private readonly xpAdded: (userId: string, seq: number) => void = () => {},
  ) {}

  async today(userId: string, now: Date): Promise<ChallengeView> {
    const c = challengeAt(now);
    const rows = await this.db.query<{ progress: bigint | null; claimed: boolean }>(
      `SELECT (${PROGRESS_OF_DAY}) AS progress, EXISTS (SELECT 1 FROM challenge_claims WHERE user_id = $1 AND challenge_id = $3) AS claimed`,
      [userId, c.day, c.id],
    );
    const progress = rows[0]?.progress ?? 0n;
    const completed = progress >= c.targetUnits;
    return {
      challenge: {
        id: c.id,
        title: c.title,
        description: c.description,
        type: c.type,
        xpReward: c.xpReward,
        cashReward: fromMicro(c.cashRewardMicro),
        day: c.day,
        expiresAt: new Date(Date.parse(`${c.day}T00:00:00.000Z`) + 86_400_000).toISOString(),
      },
      progress: {
        current: units(c, progress),
        target: units(c, c.targetUnits),
        completed,
        claimed: rows[0]?.claimed ?? false,
        percentComplete: completed ? 100 : Number((progress * 10_000n) / c.targetUnits) / 100,
      },
    };
  }

  async claim(userId: string, challengeId: string, now: Date): Promise<{ success: true; cashReward: number; xpReward: number; balance: number; xp: number }> {
    const c = claimableChallenge(challengeId, now);
    if (!c) {
      throw new AppError('NOT_FOUND', `Challenge ${challengeId} not found.`, {
        hint: "Read today's challenge id with GET /api/challenges; a challenge can be claimed on its UTC day or the day after.",
      });
    }
    const paid = await this.db.transaction(async (tx) => {
      const rows = await tx.query<{ progress: bigint | null }>(`SELECT (${PROGRESS_OF_DAY}) AS progress`, [userId, c.day]);
      const done = (rows[0]?.progress ?? 0n) >= c.targetUnits;
      // The claim row first: a concurrent claim waits on its unique key and then finds it taken.
      const claimed = await tx.query(
        `INSERT INTO challenge_claims (user_id, challenge_id, day, cash_micro, xp, claimed_at) SELECT $1, $2, $3::date, $4, $5, $6 WHERE $7::boolean
         ON CONFLICT (user_id, challenge_id) DO NOTHING RETURNING challenge_id`,
        [userId, c.id, c.day, c.cashRewardMicro.toString(), c.xpReward, now, done],
      );
      if (!claimed[0]) {
        const already = await tx.query('SELECT 1 FROM challenge_claims WHERE user_id = $1 AND challenge_id = $2', [userId, c.id]);
        if (already[0])
          throw new AppError('ALREADY_CLAIMED', `Challenge ${c.id} was already claimed.`, {
            hint: 'Each daily challenge pays once. A new one starts at 00:00 UTC.',
          });
        throw new AppError('NOT_COMPLETED', `Challenge ${c.id} is not completed yet.`, {
          hint: 'Read progress with GET /api/challenges, complete it by trading, then claim.',
        });
      }
      const balance = await credit(tx, { userId, counter: REWARDS, type: 'challenge_reward', amountMicro: c.cashRewardMicro, ref: c.id, at: now });
      const xp = await addXp(tx, userId, c.xpReward, now, this.xpAdded);
      return { success: true as const, cashReward: fromMicro(c.cashRewardMicro), xpReward: c.xpReward, balance: fromMicro(balance), xp };
    });
    this.onClaimed();
    return paid;
  }
}
