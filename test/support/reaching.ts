import http from 'node:http';

/**
 * A fetch for clients (oauth4webapi, the MCP SDK) that sends every request to the service's real socket, as if the
 * URL's host had resolved there: `host` sends the URL's host as Host (a browser or agent using that name);
 * `proxy` is a proxy answering at the URL's address, which tells the service through X-Forwarded-Host and
 * X-Forwarded-Proto and connects with the socket's own Host. Node's fetch cannot set Host itself.
 */
export function fetchReaching(socket: string, mode: 'host' | 'proxy'): typeof fetch {
  const target = new URL(socket);
  return async (input: string | URL | Request, init: RequestInit = {}) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input));
    const headers = new Headers(request ? request.headers : undefined);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const raw = init.body ?? (request && request.body ? await request.text() : undefined);
    const body = raw === undefined || raw === null ? undefined : raw instanceof URLSearchParams ? raw.toString() : String(raw);
    if (raw instanceof URLSearchParams && !headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    if (mode === 'host') headers.set('host', url.host);
    else {
      headers.set('host', target.host);
      headers.set('x-forwarded-host', url.host);
      headers.set('x-forwarded-proto', url.protocol.slice(0, -1));
    }
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: init.method ?? request?.method ?? 'GET',
          path: `${url.pathname}${url.search}`,
          headers: Object.fromEntries(headers),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const out = new Headers();
            for (const [name, value] of Object.entries(res.headers)) for (const v of ([] as string[]).concat(value ?? [])) out.append(name, v);
            const status = res.statusCode ?? 500;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: out }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  };
}
