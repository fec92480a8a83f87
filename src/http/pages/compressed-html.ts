import zlib from 'node:zlib';
import type { Request, Response } from 'express';
import { chooseEncoding } from './precompressed-assets';

/** Both encodings a page can be sent in (the same choice as the scripts', precompressed-assets.ts). */
const PAGE_ENCODINGS = new Set(['br', 'gzip'] as const);
/** Below this an encoded page gains less than its headers cost. */
const MIN_BYTES = 1024;
/**
 * Pages are drawn at most once a second per address (web-app.ts, first-reads.ts) and the app-only pages never change
 * between builds, so the same text is sent many times: its encoded bytes are kept for the last few texts.
 */
const HELD = 32;
const held = { br: new Map<string, Buffer>(), gzip: new Map<string, Buffer>() };

/**
 * Brotli at quality 5, not the build's 11: a page is encoded as it is sent, and 5 takes about a millisecond for
 * a 50 kB page against tens at 11, for a few percent more bytes.
 */
function encode(html: string, encoding: 'br' | 'gzip'): Buffer {
  const kept = held[encoding];
  const found = kept.get(html);
  if (found) return found;
  const body =
    encoding === 'br'
      ? zlib.brotliCompressSync(html, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html) },
        })
      : zlib.gzipSync(html, { level: 6 });
  if (kept.size >= HELD) kept.delete(kept.keys().next().value!);
  kept.set(html, body);
  return body;
}

/**
 * Sends an HTML page in the encoding the browser accepts (brotli, else gzip, else as it is), with
 * Vary: Accept-Encoding, as the app's scripts are sent. The status, caching and Vary: Accept headers are the caller's.
 */
export function sendHtml(req: Request, res: Response, html: string, type = 'text/html; charset=utf-8'): void {
  res.vary('Accept-Encoding');
  res.type(type);
  const encoding = Buffer.byteLength(html) >= MIN_BYTES ? chooseEncoding(req.get('accept-encoding'), PAGE_ENCODINGS) : null;
  if (!encoding) {
    res.send(html);
    return;
  }
  res.setHeader('Content-Encoding', encoding);
  // send() keeps the type set above for a Buffer, answers 304 to matching validators and no body to HEAD.
  res.send(encode(html, encoding));
}
