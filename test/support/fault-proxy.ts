import net from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that a test can break the way a network or a server does, without
 * touching the shared server: cut() drops every open connection (the service sees "Connection terminated"),
 * down() also refuses new ones (ECONNREFUSED) until up(), and pause() keeps accepting but forwards nothing
 * (a stalled link) until resume().
 */
export async function faultProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let paused = false;
  const held: Array<() => void> = [];
  let server: net.Server;
  let port = 0;

  const handle = (client: net.Socket) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const relay = (from: net.Socket, to: net.Socket) =>
      from.on('data', (chunk) => {
        const forward = () => {
          if (!to.destroyed) to.write(chunk);
        };
        if (paused) held.push(forward);
        else forward();
      });
    relay(client, upstream);
    relay(upstream, client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  };

  const listen = async () => {
    server = net.createServer(handle);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  };
  await listen();

  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(port);

  const cut = () => {
    for (const s of sockets) s.destroy();
    sockets.clear();
  };

  return {
    url: url.toString(),
    /** Open connections through the proxy (each client counts once; its upstream twin is not counted). */
    connections: () => sockets.size / 2,
    cut,
    async down() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async up() {
      await listen();
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      for (const forward of held.splice(0)) forward();
    },
    async close() {
      paused = false;
      held.length = 0;
      cut();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FaultProxy = Awaited<ReturnType<typeof faultProxy>>;
