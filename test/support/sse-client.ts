import http from 'node:http';

/** One Server-Sent Event as a client reads it (the fields it carried). */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

/**
 * A Server-Sent Events client over node:http, for tests: it keeps every message and comment line in order and can
 * wait for a condition on them. Non-200 answers are read whole (`body`).
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  body = '';
  ended = false;
  private waiters: Array<() => void> = [];

  private constructor(
    readonly status: number,
    readonly headers: http.IncomingHttpHeaders,
    private readonly req: http.ClientRequest,
  ) {}

  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
        const client = new SseClient(res.statusCode ?? 0, res.headers, req);
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          if (client.status !== 200) {
            client.body += chunk;
            return;
          }
          buffer += chunk;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            client.parse(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
          }
          client.notify();
        });
        res.on('end', () => {
          client.ended = true;
          client.notify();
          if (client.status !== 200) resolve(client);
        });
        res.on('error', () => {
          client.ended = true;
          client.notify();
        });
        if (client.status === 200) resolve(client);
      });
      req.on('error', reject);
    });
  }

  /** The JSON of each message's data, in order. */
  get events(): Array<{ id?: string; event?: string; data: Record<string, unknown> }> {
    return this.messages.filter((m) => m.data !== undefined).map((m) => ({ id: m.id, event: m.event, data: JSON.parse(m.data!) }));
  }

  async until(pred: (c: SseClient) => boolean, ms = 8000, what = 'a condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred(this)) {
      if (Date.now() > deadline) throw new Error(`SSE: timed out waiting for ${what}; got ${JSON.stringify(this.messages)} comments ${this.comments.length}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  close(): void {
    this.req.destroy();
  }

  private parse(block: string): void {
    const msg: SseMessage = {};
    let any = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') msg.id = value;
      else if (field === 'event') msg.event = value;
      else if (field === 'data') msg.data = msg.data === undefined ? value : `${msg.data}\n${value}`;
      else continue;
      any = true;
    }
    if (any) this.messages.push(msg);
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}
