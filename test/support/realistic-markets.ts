import type { Queryable } from '../../src/db/database';

/** A question as long as Polymarket's long ones (about 150 characters). */
export const longQuestion = (i: number) =>
  `Will the Federal Reserve announce a cut of 50 basis points or more to the federal funds target range at its meeting ending March 18, 2027? (#${i})`;

/** A token id as Polymarket spells one: 77 decimal digits. */
export const clobTokenId = (i: number, side: number) =>
  `${String(51327648290316470911803354280624419573921086438857301294677520004n + BigInt(i * 2 + side))}${'0'.repeat(12)}`;

/**
 * `n` active mirrored markets shaped like Polymarket's (long questions, image URLs, 77-digit token ids, a price age), ids
 * `<prefix>-000`…, volumes falling with the index: what a model scanning markets reads, at full size.
 */
export async function seedRealisticMarkets(db: Queryable, n: number, prefix = 'real'): Promise<string[]> {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  await db.query(
    `INSERT INTO markets (id, slug, question, category, image_url, volume, end_date, status, source, created_at)
     SELECT x.id, x.id || '-will-the-fed-cut-rates-by-50-bps-or-more-in-march-2027', x.question, 'Economy',
            'https://polymarket-upload.s3.us-east-2.amazonaws.com/fed-rate-decision-march-2027-' || x.id || '.png',
            x.volume, now() + interval '90 days', 'active', 'simulated', now() - interval '30 days'
     FROM unnest($1::text[], $2::text[], $3::float8[]) AS x(id, question, volume)`,
    [ids, ids.map((_, i) => longQuestion(i)), ids.map((_, i) => 2_500_000 - i * 1000.25)],
  );
  await db.query(
    `INSERT INTO market_tokens (token_id, market_id, outcome, label, price_micro, bid_micro, ask_micro, price_at)
     SELECT y, id, 'YES', 'Yes', 412000, 409000, 415000, now() - interval '5 minutes' FROM unnest($1::text[], $2::text[]) AS x(id, y)
     UNION ALL
     SELECT no, id, 'NO', 'No', 588000, 585000, 591000, now() - interval '5 minutes' FROM unnest($1::text[], $3::text[]) AS x(id, no)`,
    [ids, ids.map((_, i) => clobTokenId(i, 0)), ids.map((_, i) => clobTokenId(i, 1))],
  );
  return ids;
}
