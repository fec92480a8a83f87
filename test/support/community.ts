import type { TestApp } from './app';
import { signedInPerson } from './identity';

/** What a test needs of a community market it created. */
export interface CreatedCommunityMarket {
  id: string;
  slug: string;
  /** The first outcome's token (YES of a Yes/No market). */
  yes: string;
}

/**
 * A Yes/No community market created over REST by a new signed-in person (creation needs a browser session), ending in
 * two days; `liquidity` dollars fund its pool (the service's default when omitted). Fails the test on anything but 200.
 */
export async function createCommunityMarket(t: TestApp, question: string, liquidity?: number): Promise<CreatedCommunityMarket> {
  const maker = await signedInPerson(t);
  const created = await t.api
    .post('/api/user-markets')
    .set('Cookie', maker.cookie)
    .set('Origin', maker.origin)
    .send({
      question,
      category: 'Travel',
      outcomes: ['Yes', 'No'],
      endDate: new Date(Date.now() + 2 * 86400_000).toISOString(),
      ...(liquidity === undefined ? {} : { liquidity }),
    });
  if (created.status !== 200) throw new Error(`community market creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.id, slug: created.body.slug, yes: created.body.outcomeTokens[0].tokenId };
}
