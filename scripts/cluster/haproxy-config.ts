/** One service process as HAProxy sees it. */
export interface BackendServer {
  name: string;
  host: string;
  port: number;
}

export interface HaproxyOptions {
  /** The one address clients use. */
  listen: { host: string; port: number };
  servers: BackendServer[];
  /** The runtime API socket (`show stat`, used to wait for a server to be taken in or out). */
  adminSocket: string;
  /** Health check period; a server is out after 2 failed checks and back after 2 good ones. */
  checkIntervalMs?: number;
}

/**
 * The balancer in front of `npm run cluster`: round robin over the service processes, each checked on
 * /ready, with the client address forwarded in X-Forwarded-For (the processes run with TRUST_PROXY=1, so
 * they rate-limit the client, not the balancer, and a client's own X-Forwarded-For is never believed: HAProxy
 * appends the address it saw and the service takes the last hop). A request whose connection to a stopped
 * process fails is sent to another one; a request the process received is never sent twice (a POST the
 * process may have acted on is the client's to retry, with an Idempotency-Key). deploy/haproxy.cfg is the
 * same shape for docker compose.
 */
export function haproxyConfig(o: HaproxyOptions): string {
  const inter = o.checkIntervalMs ?? 500;
  return [
    'global',
    '  maxconn 4096',
    `  stats socket ${o.adminSocket} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  option forwardfor',
    '  option redispatch',
    '  retries 3',
    '  retry-on conn-failure',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout http-keep-alive 10s',
    // Without it a check must be answered within `inter`; a process busy on a loaded machine (two cores
    // running the whole suite) was then never taken in. A stopped process still fails at once: refused.
    '  timeout check 2s',
    '',
    'frontend www',
    `  bind ${o.listen.host}:${o.listen.port}`,
    '  default_backend service',
    '',
    'backend service',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /ready ver HTTP/1.1 hdr Host localhost',
    '  http-check expect status 200',
    `  default-server check inter ${inter}ms fall 2 rise 2`,
    ...o.servers.map((s) => `  server ${s.name} ${s.host}:${s.port}`),
    '',
  ].join('\n');
}
