import { EventFeed, type Listen } from '../../../src/domain/events/event-feed';
import { createLogger } from '../../../src/logger';

/** A listen that hears what the test hands it. */
function handListen(): { listen: Listen; hear(payload: string): void; stopped: () => boolean } {
  let onPayload: (p: string) => void = () => {};
  let stopped = false;
  return {
    listen: async (_channel, heard) => {
      onPayload = heard;
      return async () => void (stopped = true);
    },
    hear: (p) => onPayload(p),
    stopped: () => stopped,
  };
}

const USER = '11111111-1111-4111-8111-111111111111';

describe('EventFeed', () => {
  test("when an announcement is heard, then the account's subscribers and every all-accounts subscriber are woken with its seq", async () => {
    const hand = handListen();
    const feed = new EventFeed(createLogger('silent'), 60_000);
    await feed.start(hand.listen);
    const woken: Array<[string, bigint | null]> = [];
    feed.subscribe(USER, (u, s) => woken.push([u, s]));
    feed.subscribe('22222222-2222-4222-8222-222222222222', (u, s) => woken.push([u, s]));
    feed.subscribeAll((u, s) => woken.push([`all:${u}`, s]));
    hand.hear(`${USER}:7`);
    hand.hear('not an announcement');
    expect(woken).toEqual([
      [USER, 7n],
      [`all:${USER}`, 7n],
    ]);
    await feed.stop();
  });

  test('when nothing is heard for catchUpMs, then every subscriber is woken to catch up (seq null), and never after stop()', async () => {
    jest.useFakeTimers();
    try {
      const hand = handListen();
      const feed = new EventFeed(createLogger('silent'), 1000);
      await feed.start(hand.listen);
      const woken: Array<[string, bigint | null]> = [];
      const unsubscribe = feed.subscribe(USER, (u, s) => woken.push([u, s]));
      feed.subscribeAll((u, s) => woken.push([`all:${u}`, s]));
      jest.advanceTimersByTime(999);
      expect(woken).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(woken).toEqual([
        [USER, null],
        ['all:', null],
      ]);
      unsubscribe();
      jest.advanceTimersByTime(1000);
      expect(woken).toEqual([
        [USER, null],
        ['all:', null],
        ['all:', null],
      ]);
      await feed.stop();
      expect(hand.stopped()).toBe(true);
      jest.advanceTimersByTime(5000);
      expect(woken).toHaveLength(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
