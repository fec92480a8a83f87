import { ApiError, asApiError, describeError } from '../../web/src/lib/api/api-error';
import { ERROR_HINTS } from '../../web/src/lib/error-hints';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe("the web app's error display (web/src/lib/api/api-error.ts)", () => {
  test('when the service answers an error, then its code, message, hint and request id are kept', async () => {
    const e = await ApiError.fromResponse(
      json(400, { error: 'Balance 5.00 is short of 25.00.', code: 'INSUFFICIENT_BALANCE', hint: 'Trade a smaller amount.', requestId: 'r-1' }),
    );
    expect(e).toMatchObject({
      status: 400,
      code: 'INSUFFICIENT_BALANCE',
      message: 'Balance 5.00 is short of 25.00.',
      hint: 'Trade a smaller amount.',
      requestId: 'r-1',
    });
    // The service's hint is for agents; the person reads the app's own.
    expect(describeError(e)).toEqual({ message: 'Balance 5.00 is short of 25.00.', hint: ERROR_HINTS.INSUFFICIENT_BALANCE });
    expect(e.needsSignIn).toBe(false);
  });

  test('when no fresh price exists, then the person reads that nothing was traded', async () => {
    const e = await ApiError.fromResponse(json(503, { error: 'The price of this token is 120 s old.', code: 'PRICE_UNAVAILABLE', hint: 'Retry shortly.' }));
    expect(describeError(e).message).toBe('No fresh price: nothing was traded. The price of this token is 120 s old.');
  });

  test('when the rate limit is hit, then the message says how long to wait, from Retry-After', async () => {
    const e = await ApiError.fromResponse(json(429, { error: 'Too many requests.', code: 'RATE_LIMITED' }, { 'Retry-After': '42' }));
    expect(e.retryAfterS).toBe(42);
    expect(describeError(e).message).toBe('Too many requests. Try again in 42 s.');
  });

  test('when the session is gone (401), then the error asks for sign-in', async () => {
    const e = await ApiError.fromResponse(json(401, { error: 'This operation needs a browser session.', code: 'SESSION_REQUIRED' }));
    expect(e.needsSignIn).toBe(true);
  });

  test('when the answer is not JSON or a page throws, then there is still a message', async () => {
    const e = await ApiError.fromResponse(new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }));
    expect(e).toMatchObject({ status: 502, code: 'HTTP_502', message: 'The service answered 502 Bad Gateway.' });
    expect(asApiError(new TypeError('x is undefined'))).toMatchObject({ code: 'APP_ERROR', message: 'x is undefined' });
  });

  test('when the service hints in API words (method names, paths), then the person never reads them', async () => {
    const hints = [
      'Read get_balance (available = balance − reserved by resting buy orders); cancel resting buy orders or use a smaller amount.',
      "Read today's challenge id with GET /api/challenges; a challenge can be claimed on its UTC day or the day after.",
      'Use outcomeTokens[].tokenId from search_prediction_markets.',
    ];
    for (const [code, hint] of [
      ['INSUFFICIENT_BALANCE', hints[0]],
      ['NOT_FOUND', hints[1]],
      ['VALIDATION_ERROR', hints[2]],
    ] as const) {
      const shown = describeError(await ApiError.fromResponse(json(400, { error: 'Refused.', code, hint })));
      expect(shown.hint ?? '').not.toMatch(/[a-z]+_[a-z]+|\/api\/|\b(GET|POST)\b/);
    }
    for (const text of Object.values(ERROR_HINTS)) expect(text).not.toMatch(/[a-z]+_[a-z]+|\/api\/|\b(GET|POST)\b/);
  });
});
