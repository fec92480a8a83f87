/** Where an account stands on a board: its figure, then its resolved markets, then its id (the first 8 hex digits). */
export interface Standing {
  figure: number;
  resolvedMarkets: number;
  /** The account id's first 32 bits: ids compare as their hex text does, so this orders them unless two share it. */
  idPrefix: number;
}

/** The first 32 bits of a uuid, as a number that orders as the uuid's text does. */
export const idPrefixOf = (userId: string): number => parseInt(userId.slice(0, 8), 16);

/**
 * An audience's standings on a board, in the board's order (best figure first, then more resolved markets, then the
 * lower id): where a caller stands is then a binary search per audience instead of a count of the rows ahead in the
 * database. 16 bytes an account.
 */
export class BoardStandings {
  private constructor(
    private readonly figures: Float64Array,
    private readonly resolved: Uint32Array,
    private readonly ids: Uint32Array,
    private readonly lowFirst: boolean,
  ) {}

  /** From standings in any order; `lowFirst` when a lower figure ranks first (Brier, drawdown). */
  static of(standings: readonly Standing[], lowFirst: boolean): BoardStandings {
    const sorted = [...standings].sort((a, b) => compare(a, b, lowFirst));
    return new BoardStandings(
      Float64Array.from(sorted, (s) => s.figure),
      Uint32Array.from(sorted, (s) => s.resolvedMarkets),
      Uint32Array.from(sorted, (s) => s.idPrefix),
      lowFirst,
    );
  }

  get size(): number {
    return this.figures.length;
  }

  /** How many standings rank strictly before `s`, and how many are indistinguishable from it (same three keys). */
  around(s: Standing): { ahead: number; equal: number } {
    const n = this.figures.length;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compareAt(mid, s) < 0) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < n && this.compareAt(end, s) === 0) end += 1;
    return { ahead: lo, equal: end - lo };
  }

  private compareAt(i: number, s: Standing): number {
    return compare({ figure: this.figures[i]!, resolvedMarkets: this.resolved[i]!, idPrefix: this.ids[i]! }, s, this.lowFirst);
  }
}

/** The board's order: negative when a ranks before b. */
function compare(a: Standing, b: Standing, lowFirst: boolean): number {
  if (a.figure !== b.figure) return a.figure < b.figure === lowFirst ? -1 : 1;
  if (a.resolvedMarkets !== b.resolvedMarkets) return b.resolvedMarkets - a.resolvedMarkets;
  return a.idPrefix - b.idPrefix;
}

/**
 * A ranked caller's place among the audiences of a board: 1 + the standings ahead of theirs, or null when theirs is not
 * there exactly once (read before the caller's last change, or another id sharing its first 32 bits and its figures),
 * which leaves it to the database's count.
 */
export function placeAmong(audiences: readonly BoardStandings[], s: Standing): number | null {
  let ahead = 0;
  let equal = 0;
  for (const standings of audiences) {
    const at = standings.around(s);
    ahead += at.ahead;
    equal += at.equal;
  }
  return equal === 1 ? 1 + ahead : null;
}
