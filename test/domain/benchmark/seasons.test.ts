import { isProvisional, parseSeason, seasonOf, seasonRange } from '../../../src/domain/benchmark/seasons';

describe('seasons', () => {
  it('a resolution counts in its UTC month, up to the last millisecond', () => {
    expect(seasonOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(seasonOf(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
  });
  it('a season spans its month, December into January', () => {
    expect(seasonRange('2026-12')).toEqual({ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2027-01-01T00:00:00Z') });
    expect(seasonRange('all')).toBeNull();
  });
  it('when a caller names a season, only all or a month up to now is accepted', () => {
    const now = new Date('2026-11-27T12:00:00Z');
    expect(parseSeason(undefined, now)).toBe('2026-11');
    expect(parseSeason('all', now)).toBe('all');
    expect(parseSeason('2026-10', now)).toBe('2026-10');
    for (const bad of ['2026-12', '2026-13', '26-11', '2019-12', 'alltime'])
      expect(() => parseSeason(bad, now)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
  it('a season is provisional until its month has ended, to the millisecond; all always is', () => {
    expect(isProvisional('2026-11', new Date('2026-11-30T23:59:59.999Z'))).toBe(true);
    expect(isProvisional('2026-11', new Date('2026-12-01T00:00:00.000Z'))).toBe(false);
    expect(isProvisional('2026-10', new Date('2026-11-15T00:00:00Z'))).toBe(false);
    expect(isProvisional('all', new Date('2040-01-01T00:00:00Z'))).toBe(true);
  });
});
