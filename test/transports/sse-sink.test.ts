import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HttpEventSink } from '../../src/transports/sse';

/**
 * The SSE transport's bound on a slow client: send() answers false once the socket's buffer is full, drained() waits,
 * and a client that stays behind longer than stallMs is disconnected (its stream closes and its listeners run).
 */
describe('a Server-Sent Events sink', () => {
  let server: http.Server;
  let port: number;
  const sinks: HttpEventSink[] = [];
  beforeAll(async () => {
    const app = express();
    app.get('/stream', (_req, res) => {
      const sink = new HttpEventSink(res, { heartbeatMs: 60_000, stallMs: 300, maxBufferedBytes: 64 << 20 });
      sink.begin();
      sinks.push(sink);
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  /** A client that sends the request and then never reads. */
  const stalledClient = async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write('GET /stream HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
    socket.pause();
    const before = sinks.length;
    while (sinks.length === before) await new Promise((r) => setTimeout(r, 10));
    return { socket, sink: sinks.at(-1)! };
  };

  test('when the client stops reading, then send() reports a full buffer, and after stallMs the client is cut off', async () => {
    const { socket, sink } = await stalledClient();
    let closedBy = false;
    sink.onClose(() => (closedBy = true));
    const big = { text: 'x'.repeat(64 * 1024) };
    let sent = 0;
    // Fill until the kernel's buffers are full too: then no 'drain' comes.
    let waited: Promise<void> | undefined;
    for (let round = 0; round < 200 && !waited; round += 1) {
      while (sink.send({ id: String(++sent), event: 'trade', data: big }) && sent < 100_000);
      const d = sink.drained();
      const drainedSoon = await Promise.race([d.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 100))]);
      if (!drainedSoon) waited = d;
    }
    expect(waited).toBeDefined(); // backpressure reached
    const started = Date.now();
    await waited; // resolves when the stream closes
    expect(sink.closed).toBe(true);
    expect(closedBy).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    socket.destroy();
  });

  test('when the client reads again in time, then drained() resolves and the stream stays open', async () => {
    const { socket, sink } = await stalledClient();
    const big = { text: 'y'.repeat(64 * 1024) };
    let sent = 0;
    while (sink.send({ id: String(++sent), event: 'trade', data: big }) && sent < 10_000);
    const waited = sink.drained();
    socket.resume();
    socket.on('data', () => {});
    await waited;
    expect(sink.closed).toBe(false);
    await new Promise((r) => setTimeout(r, 400)); // past stallMs: not cut off
    expect(sink.closed).toBe(false);
    sink.end();
    socket.destroy();
  });
});
