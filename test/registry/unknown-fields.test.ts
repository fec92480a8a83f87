import { nearestField, unknownFieldMessage } from '../../src/registry/unknown-fields';
import { ALL_METHODS } from '../../src/methods';
import { inputSchemaOf } from '../../src/documents/json-schema';

describe('unknown fields', () => {
  it('suggests the nearest known field for a slip, and none for an unrelated name', () => {
    const known = ['marketId', 'marketSlug', 'tokenId', 'outcome', 'amount', 'forecast'];
    expect(nearestField('marketid', known)).toBe('marketId');
    expect(nearestField('ammount', known)).toBe('amount');
    expect(nearestField('token_id', known)).toBe('tokenId');
    expect(nearestField('limitPrice', known)).toBeUndefined();
  });
  it('names each unknown field, with a suggestion where one is near, and the fields the method takes', () => {
    expect(unknownFieldMessage(['ammount', 'limitPrice'], ['amount', 'outcome'])).toBe(
      'unknown fields ammount (did you mean amount?), limitPrice; this method takes amount, outcome',
    );
  });
  it('when the registry is built, then every method input schema refuses unknown fields', () => {
    for (const m of ALL_METHODS) expect([m.name, inputSchemaOf(m).additionalProperties]).toEqual([m.name, false]);
  });
});
