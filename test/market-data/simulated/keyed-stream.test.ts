import { createHmac } from 'node:crypto';
import { keyedNormals, keystream, streamKey } from '../../../src/market-data/simulated/keyed-stream';
import { MarketDraws } from '../../../src/market-data/simulated/venue-seal';

describe('the keyed stream of a market’s price steps', () => {
  test('when the key and nonce are zero, then the stream is ChaCha20’s published first block (RFC 8439, A.1 test vector 1)', () => {
    expect(keystream(Buffer.alloc(32), 64).toString('hex')).toBe(
      '76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586',
    );
  });

  test('when normals are drawn, then each pair is Box-Muller over two little-endian words of the stream', () => {
    const key = Buffer.alloc(32, 7);
    const bytes = keystream(key, 16);
    const u = (i: number) => (bytes.readUInt32LE(4 * i) + 0.5) / 2 ** 32;
    const r = Math.sqrt(-2 * Math.log(u(0)));
    const n = keyedNormals(key, 3);
    expect(n[0]).toBeCloseTo(r * Math.cos(2 * Math.PI * u(1)), 12);
    expect(n[1]).toBeCloseTo(r * Math.sin(2 * Math.PI * u(1)), 12);
    expect(n[2]).toBeCloseTo(Math.sqrt(-2 * Math.log(u(2))) * Math.cos(2 * Math.PI * u(3)), 12);
  });

  test('when a market’s steps are drawn, then they come from its whole 256-bit key: one flipped bit of the key changes them', () => {
    const key = createHmac('sha256', 'k').update('market|1').digest();
    const flipped = Buffer.from(key);
    flipped[31] = flipped[31]! ^ 1;
    const a = new MarketDraws(key).stepNormals('market', 100);
    expect(a).toEqual(keyedNormals(streamKey(key, 'market'), 100));
    expect(new MarketDraws(flipped).stepNormals('market', 100)).not.toEqual(a);
    // The two kinds of path never share steps.
    expect(new MarketDraws(key).stepNormals('informed', 100)).not.toEqual(a);
  });

  test('when many normals are drawn, then their mean and variance are those of a standard normal', () => {
    const n = keyedNormals(Buffer.alloc(32, 1), 20_000);
    const mean = n.reduce((s, x) => s + x, 0) / n.length;
    const variance = n.reduce((s, x) => s + (x - mean) ** 2, 0) / n.length;
    // 4 standard errors: 4/sqrt(20000) for the mean, 4·sqrt(2/20000) for the variance.
    expect(Math.abs(mean)).toBeLessThan(0.0283);
    expect(Math.abs(variance - 1)).toBeLessThan(0.04);
  });
});
