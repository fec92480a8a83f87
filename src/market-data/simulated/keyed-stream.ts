import { createCipheriv, createHmac } from 'node:crypto';

/**
 * A market's price steps drawn from a keyed stream of full width (issue 49): ChaCha20 over a 256-bit key derived from the
 * market's sealed key, so watching a path tells nothing about its future steps short of breaking the cipher (a 32-bit
 * seed, as before, could be searched in minutes). The stream is generated in one piece: a path has at most a few
 * thousand steps, 8 bytes each.
 */

const { log, sqrt, cos, sin, PI } = Math;
const TWO_32 = 4294967296;

/** The 256-bit key of one named stream of a market: HMAC-SHA256(market key, "stream|" + label). */
export function streamKey(marketKey: Buffer, label: string): Buffer {
  return createHmac('sha256', marketKey).update(`stream|${label}`).digest();
}

/** `count` bytes of the ChaCha20 keystream of `key` (nonce and counter zero). */
export function keystream(key: Buffer, count: number): Buffer {
  const cipher = createCipheriv('chacha20', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(count)), cipher.final()]);
}

/** `count` standard normals from the stream: Box-Muller, each pair of 32-bit words serving two draws (cos, then sin). */
export function keyedNormals(key: Buffer, count: number): Float64Array {
  const pairs = Math.ceil(count / 2);
  const bytes = keystream(key, pairs * 8);
  const out = new Float64Array(pairs * 2);
  for (let j = 0; j < pairs; j++) {
    const u1 = (bytes.readUInt32LE(8 * j) + 0.5) / TWO_32;
    const u2 = (bytes.readUInt32LE(8 * j + 4) + 0.5) / TWO_32;
    const r = sqrt(-2 * log(u1));
    out[2 * j] = r * cos(2 * PI * u2);
    out[2 * j + 1] = r * sin(2 * PI * u2);
  }
  return out;
}
