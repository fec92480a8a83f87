import { replay } from '../../bench/support/harness';

describe('replay', () => {
  test('hands out the drawn requests in order, round and round', () => {
    const setup = replay([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }]);
    expect([setup({}), setup({}), setup({})]).toEqual([{ path: '/a' }, { path: '/b', method: 'POST', body: '{}' }, { path: '/a' }]);
  });
});
