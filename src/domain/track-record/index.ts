import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import type { AccountService } from '../accounts/account-service';
import type { AccountDeletion } from '../accounts/account-deletion';
import type { AccountSettings } from '../accounts/account-settings';
import type { TradeHooks } from '../trading/trade-hooks';
import { NotificationService } from '../notifications/notification-service';
import { ChallengeService } from './challenge-service';
import { LeaderboardService } from './leaderboard-service';
import { rewardReferral } from './referrals';
import { StatsService } from './stats-service';
import { trackTrade } from './track-listener';
import { leaveBoards, renameCard } from './account-changes';
import { BoardFolder, READ_WAIT_MS } from './board-folder';

/** The track record: leaderboards, trader stats and reputation, XP and badges, daily challenges, notifications. */
export interface TrackRecord {
  leaderboard: LeaderboardService;
  stats: StatsService;
  challenges: ChallengeService;
  notifications: NotificationService;
  /** Folds trades' pending figures into the boards; started and stopped with the service. */
  folder: BoardFolder;
}

/** Builds the services and attaches the listeners that keep the aggregates in the trades' and registrations' own transactions. */
export function createTrackRecord(args: {
  db: Database;
  tradeHooks: TradeHooks;
  accounts: AccountService;
  deletion: AccountDeletion;
  settings: AccountSettings;
  log?: Logger;
}): TrackRecord {
  const folder = new BoardFolder(args.db, args.log);
  const mark = (userId: string, seq: number) => folder.mark(userId, seq);
  args.tradeHooks.on((tx, e) => trackTrade(tx, e, mark));
  args.accounts.onRegister((tx, account) => rewardReferral(tx, account, mark));
  args.deletion.onDelete(leaveBoards);
  args.settings.onRename(renameCard);
  // Every committed write that moves a board (trades, sales, settlements, referral rewards, claims) starts the boards' cache over.
  // This process's pending trades are folded before any board or rank is read, so its own writes show at once,
  // and every process hears that boards are read, so it folds its own (board-folder.ts). A slow database makes
  // the read wait no more than a quarter second (READ_WAIT_MS); it then goes without, and the next renewal of the board, a
  // second later, finds the fold's commit.
  const beforeRead = () => folder.beforeRead(READ_WAIT_MS);
  const leaderboard = new LeaderboardService(args.db, { beforeRead });
  const changed = () => leaderboard.invalidate();
  args.tradeHooks.onCommitted(changed);
  args.accounts.onRegistered(changed);
  args.deletion.onDeleted(changed);
  args.settings.onRenamed(changed);
  return {
    leaderboard,
    stats: new StatsService(args.db),
    challenges: new ChallengeService(args.db, changed, mark),
    notifications: new NotificationService(args.db),
    folder,
  };
}
