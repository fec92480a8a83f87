import { AppError } from '../errors/app-error';

/**
 * Opaque cursors of keyset-paged lists: where the previous page ended (the last row's sort key and id), as
 * base64url JSON. Keys are text as PostgreSQL wrote them, so a timestamp keeps its microseconds.
 */
export interface KeysetCursor {
  /** The sort the page was in (a cursor of another sort is refused). */
  s: string;
  /** The last row's sort key, as text. */
  k: string;
  /** The last row's id. */
  i: string;
}

/** The text PostgreSQL writes for a float8. */
export const FLOAT_TEXT = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;
/** The text PostgreSQL writes (DateStyle ISO) for a timestamptz. */
export const TIMESTAMP_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/;

export function encodeCursor(c: KeysetCursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function badCursor(hint: string): AppError {
  return new AppError('VALIDATION_ERROR', 'cursor is not a cursor of this list.', { hint });
}

/**
 * The cursor a client sent back, checked: of this sort, with a key `validKey` accepts (it goes into SQL as a
 * typed parameter, so anything PostgreSQL could not parse is refused here, as a 400, not there as a 500), and
 * likewise an id `validId` accepts.
 */
export function decodeCursor(
  text: string,
  sort: string,
  validKey: (k: string) => boolean,
  hint: string,
  validId: (i: string) => boolean = () => true,
): KeysetCursor {
  let c: Partial<KeysetCursor> | null;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<KeysetCursor> | null;
  } catch {
    throw badCursor(hint);
  }
  const ok =
    typeof c === 'object' &&
    c !== null &&
    c.s === sort &&
    typeof c.k === 'string' &&
    typeof c.i === 'string' &&
    c.k.length <= 64 &&
    c.i.length <= 300 &&
    validKey(c.k) &&
    validId(c.i);
  if (!ok) throw badCursor(hint);
  return c as KeysetCursor;
}
