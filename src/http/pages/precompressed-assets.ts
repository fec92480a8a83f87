import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';

/** The encodings the build writes beside each text asset (web/vite.config.mts), best first, with their file suffix. */
const ENCODINGS = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

type Encoding = (typeof ENCODINGS)[number]['name'];

/** The q-value (0..1) Accept-Encoding gives an encoding: its own entry, else `*`, else 0 (RFC 9110 §12.5.3). */
function qualityOf(acceptEncoding: string, name: string): number {
  let star: number | undefined;
  for (const part of acceptEncoding.split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const value = Number.isFinite(q) ? q : 0;
    if (token === name || (name === 'gzip' && token === 'x-gzip')) return value;
    if (token === '*') star = value;
  }
  return star ?? 0;
}

/** The best encoding the request accepts among those a file has (ties go to brotli, the smaller); null for identity. */
export function chooseEncoding(acceptEncoding: string | undefined, available: ReadonlySet<Encoding>): Encoding | null {
  if (!acceptEncoding) return null;
  let best: { name: Encoding; q: number } | null = null;
  for (const { name } of ENCODINGS) {
    if (!available.has(name)) continue;
    const q = qualityOf(acceptEncoding, name);
    if (q > 0 && (!best || q > best.q)) best = { name, q };
  }
  return best?.name ?? null;
}

/** An encoded copy as it is sent: its bytes and validators, read once (a hashed name's content never changes). */
interface HeldCopy {
  body: Buffer;
  etag: string;
  lastModified: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The build's hashed assets (dir: dist/web/assets), each sent as its brotli or gzip copy when the browser accepts
 * one, with Content-Encoding, Vary: Accept-Encoding and a year's immutable caching: a new build has new names.
 * Names are flat (vite writes assets/<name>-<hash>.<ext>), so anything with a slash falls through to the 404.
 * The encoded copies are held in memory once read and sent in one write: a first page's scripts arrive while its
 * first API read runs on the same thread (the embedded database computes there), and a file sent from disk waited
 * behind it at each of its stat, open and reads (bench:web).
 */
export function precompressedAssets(dir: string) {
  // Which copies a file has never changes while its name stands (the name is its content's hash).
  const variants = new Map<string, Set<Encoding>>();
  const variantsOf = (name: string): Set<Encoding> => {
    let found = variants.get(name);
    if (!found) {
      found = new Set(ENCODINGS.filter((e) => fs.existsSync(path.join(dir, name + e.suffix))).map((e) => e.name));
      if (variants.size < 10_000) variants.set(name, found);
    }
    return found;
  };
  // Bounded by the build: only files that exist are held (a miss is not remembered).
  const held = new Map<string, HeldCopy>();
  const copyOf = (file: string): HeldCopy | null => {
    let copy = held.get(file);
    if (!copy) {
      try {
        const stat = fs.statSync(file);
        copy = {
          body: fs.readFileSync(file),
          etag: `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`,
          lastModified: stat.mtime.toUTCString(),
        };
      } catch {
        return null;
      }
      held.set(file, copy);
    }
    return copy;
  };
  const identity = express.static(dir, { immutable: true, maxAge: '365d', index: false, redirect: false, fallthrough: true, dotfiles: 'ignore' });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (!/^[\w.-]+$/.test(name) || name.startsWith('.') || ENCODINGS.some((e) => name.endsWith(e.suffix))) return next();
    const available = variantsOf(name);
    if (available.size > 0) res.setHeader('Vary', 'Accept-Encoding');
    const encoding = chooseEncoding(req.get('accept-encoding'), available);
    if (!encoding) return identity(req, res, next);
    const copy = copyOf(path.join(dir, name + ENCODINGS.find((e) => e.name === encoding)!.suffix));
    if (!copy) return identity(req, res, next);
    // The type is the original file's: a .br file would be application/octet-stream.
    res.type(path.extname(name));
    res.setHeader('Content-Encoding', encoding);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('ETag', copy.etag);
    res.setHeader('Last-Modified', copy.lastModified);
    // send() answers 304 when the request's validators match, and no body to HEAD.
    res.send(copy.body);
  };
}
