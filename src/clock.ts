/** The time source every layer reads; tests swap it for a fixed or stepped clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
