import { callerKey, type InvokeDeps } from '../../src/registry/invoke';
import type { CallInfo, Principal } from '../../src/registry/context';

// Only the fields callerKey reads: the run a call was routed to, the principal, the caller's address.
const deps = (run?: string) => ({ run: run ? { id: run } : undefined }) as unknown as InvokeDeps;
const principal = { userId: '00000000-0000-4000-8000-000000000001' } as Principal;
const call = { ip: '203.0.113.7' } as CallInfo;

describe('callerKey', () => {
  test('when two replay runs of one scenario (one run account id) call, then each counts under its own run, apart from a live account', () => {
    const keys = [callerKey(deps('run-a'), principal, call), callerKey(deps('run-b'), principal, call), callerKey(deps(), principal, call)];
    expect(keys).toEqual([
      'run:run-a:user:00000000-0000-4000-8000-000000000001',
      'run:run-b:user:00000000-0000-4000-8000-000000000001',
      'user:00000000-0000-4000-8000-000000000001',
    ]);
  });

  test('when nobody is signed in, then the address counts, as before', () => {
    expect(callerKey(deps(), null, call)).toBe('ip:203.0.113.7');
  });
});
