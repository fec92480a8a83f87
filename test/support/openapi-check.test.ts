import express from 'express';
import { checkedAgent } from './openapi-check';
import { ERROR_SCHEMA } from '../../src/documents/openapi-parts';

/** The response check itself, on a small app whose document and behaviour disagree on purpose. */
const json = (schema: object) => ({ description: 'x', content: { 'application/json': { schema } } });
const ERROR = json({ $ref: '#/components/schemas/Error' });

const doc = {
  openapi: '3.1.0',
  info: { title: 'check', version: '1.0.0' },
  paths: {
    '/api/things/{id}': {
      get: {
        operationId: 'thing',
        responses: {
          '200': json({
            type: 'object',
            properties: { n: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
            required: ['n'],
            additionalProperties: false,
          }),
          '400': ERROR,
        },
      },
    },
    '/api/things/special': { get: { operationId: 'special', responses: { '200': json({ const: 'special' }) } } },
    '/page': { get: { operationId: 'page', responses: { '200': { description: 'x', content: { 'text/html': { schema: { type: 'string' } } } } } } },
  },
  components: { schemas: { Error: ERROR_SCHEMA } },
};

function fakeApp() {
  const app = express();
  app.get('/openapi.json', (_req, res) => {
    res.json(doc);
  });
  app.get('/api/things/special', (_req, res) => {
    res.json('special');
  });
  app.get('/api/things/:id', (req, res) => {
    const answers: Record<string, () => void> = {
      ok: () => res.json({ n: Number(req.query.n ?? 1) }),
      'wrong-type': () => res.json({ n: 'one' }),
      'extra-field': () => res.json({ n: 1, passwordHash: 'x' }),
      'bad-format': () => res.json({ n: 1, at: 'yesterday' }),
      'undocumented-status': () => res.status(418).json({ error: 'teapot', code: 'INTERNAL' }),
      'bad-error': () => res.status(400).json({ message: 'nope', stack: 'at x.js:1' }),
      'good-error': () => res.status(400).json({ error: 'Bad id', code: 'VALIDATION_ERROR' }),
      html: () => res.type('html').send('<p>hi</p>'),
    };
    answers[String(req.params.id)]!();
  });
  app.get('/page', (_req, res) => {
    res.type('html').send('<p>page</p>');
  });
  app.get('/undocumented', (_req, res) => {
    res.json({ ok: true });
  });
  app.post('/mcp', (_req, res) => {
    res.status(202).send('anything');
  });
  app.use('/api', (req, res) => {
    res.status(req.method === 'GET' ? 404 : 405).json({ error: `No endpoint ${req.method} ${req.path}`, code: 'ENDPOINT_NOT_FOUND' });
  });
  app.use((_req, res) => {
    res.status(404).send('plain text 404');
  });
  return app;
}

describe('checkedAgent: every response is held to the OpenAPI document the app serves', () => {
  const api = checkedAgent(fakeApp());

  test('when a response matches its documented schema, then the await resolves with the response (chains still work)', async () => {
    const res = await api.get('/api/things/ok').query({ n: 7 }).set('X-Test', '1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ n: 7 });
    await expect(api.get('/api/things/good-error')).resolves.toMatchObject({ status: 400 });
    await expect(api.get('/page')).resolves.toMatchObject({ status: 200 });
    await expect(api.get('/api/things/special')).resolves.toMatchObject({ body: 'special' });
  });

  test.each([
    ['wrong-type', /\/n must be integer/],
    ['extra-field', /must NOT have additional properties/],
    ['bad-format', /\/at must match format "date-time"/],
    ['bad-error', /must have required property 'error'/],
    ['undocumented-status', /status 418 is not documented for GET \/api\/things\/\{id\} \(documented: 200, 400\)/],
    ['html', /content type text\/html is not documented/],
  ])('when the body or status differs (%s), then the await rejects saying what differs', async (id, message) => {
    await expect(api.get(`/api/things/${id}`)).rejects.toThrow(message);
  });

  test('when a path or method is not in the document, then it rejects, except the 404/405 Error answers for what is not served', async () => {
    await expect(api.get('/undocumented')).rejects.toThrow(/GET \/undocumented is not in \/openapi.json/);
    await expect(api.get('/api/nope')).resolves.toMatchObject({ status: 404 });
    await expect(api.delete('/api/things/ok')).resolves.toMatchObject({ status: 405 });
    await expect(api.get('/nowhere')).rejects.toThrow(/an error must be an Error body/);
  });

  test('when the endpoint is on the allow-list (protocol envelopes such as /mcp), then it is not checked', async () => {
    await expect(api.post('/mcp').send({})).resolves.toMatchObject({ status: 202 });
  });
});
