/** Where an account stands on a board: its figure, then its resolved markets, then its id (the first 8 hex digits). */
export interface Standing {
  figure: number;
  resolvedMarkets: number;
  /** The account id's first 32 bits: ids compare as their hex text does, so this orders them unless two share it. */
  idPrefix: number;
}

/** A standing as BoardStandings.fromBytes reads it: 8 bytes of figure, 4 of resolved markets, 4 of id (big-endian). */
export const STANDING_BYTES = 16;

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

  /**
   * From the bytes the database packs them in (STANDING_BYTES each: the figure as float8send, resolved markets as int4send,
   * the id's first 4 bytes), in the board's order as it sorted them: copied into the arrays in one pass, no object or
   * string per standing, so an audience of 100,000 costs the event loop about a millisecond, not the ~100 ms of parsing
   * text and sorting it again. Bytes out of the board's order (which the statement's ORDER BY rules out) are sorted.
   */
  static fromBytes(bytes: Uint8Array, lowFirst: boolean): BoardStandings {
    if (bytes.length % STANDING_BYTES !== 0) throw new Error(`standings of ${bytes.length} bytes, not a multiple of ${STANDING_BYTES}`);
    const n = bytes.length / STANDING_BYTES;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    const standings = new BoardStandings(new Float64Array(n), new Uint32Array(n), new Uint32Array(n), lowFirst);
    let ordered = true;
    for (let i = 0; i < n; i += 1) {
      const at = i * STANDING_BYTES;
      standings.figures[i] = view.getFloat64(at);
      standings.resolved[i] = view.getUint32(at + 8);
      standings.ids[i] = view.getUint32(at + 12);
      if (ordered && i > 0 && standings.compareAt(i - 1, standings.standingAt(i)) > 0) ordered = false;
    }
    return ordered
      ? standings
      : BoardStandings.of(
          Array.from({ length: n }, (_, i) => standings.standingAt(i)),
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
    return compare(this.standingAt(i), s, this.lowFirst);
  }

  private standingAt(i: number): Standing {
    return { figure: this.figures[i]!, resolvedMarkets: this.resolved[i]!, idPrefix: this.ids[i]! };
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
