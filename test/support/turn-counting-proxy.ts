import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that counts the client's turns: the times the client writes after the
 * server has answered. Statements that travel together are one turn; each awaited round trip is another.
 * Every chunk is held for `delayMs`, so what one tick of the client writes arrives before any answer.
 */
export async function turnCountingProxy(target: URL, delayMs: number) {
  let turns = 0;
  let lastFromClient = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const relay = (from: net.Socket, to: net.Socket, fromClient: boolean) =>
      from.on('data', (chunk) => {
        if (fromClient && !lastFromClient) turns += 1;
        lastFromClient = fromClient;
        setTimeout(() => to.write(chunk), delayMs);
      });
    relay(client, upstream, true);
    relay(upstream, client, false);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    turns: () => turns,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
