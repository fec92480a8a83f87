import type { AnyMethod } from '../registry/method';
import { Registry } from '../registry/registry';
import { isStream, type AnyStream } from '../registry/stream';
import * as accounts from './accounts';
import * as benchmark from './benchmark';
import * as comments from './comments';
import * as community from './community';
import * as events from './events';
import * as forecasts from './forecasts';
import * as agents from './agents';
import * as gamification from './gamification';
import * as identity from './identity';
import * as leaderboards from './leaderboards';
import * as markets from './markets';
import * as orders from './orders';
import * as replay from './replay';
import * as replaySuite from './replay-suite';
import * as trading from './trading';
import * as venue from './venue';
import * as webhooks from './webhooks';
import * as watchlist from './watchlist';
import * as whoami from './whoami';

/** Every method of the service. A new area's module is added to this list, and nowhere else. */
const MODULES: Array<Record<string, unknown>> = [
  accounts,
  events,
  markets,
  venue,
  trading,
  orders,
  forecasts,
  benchmark,
  replay,
  replaySuite,
  agents,
  identity,
  leaderboards,
  gamification,
  community,
  comments,
  webhooks,
  watchlist,
  whoami,
];

const isMethod = (v: unknown): v is AnyMethod => typeof v === 'object' && v !== null && 'handler' in v && 'name' in v;

export const ALL_METHODS: AnyMethod[] = MODULES.flatMap((mod) => Object.values(mod).filter(isMethod));

/** Every Server-Sent Events stream (src/registry/stream.ts), declared in the same modules. */
export const ALL_STREAMS: AnyStream[] = MODULES.flatMap((mod) => Object.values(mod).filter(isStream));

export function buildRegistry(): Registry {
  return new Registry(ALL_METHODS, ALL_STREAMS);
}
