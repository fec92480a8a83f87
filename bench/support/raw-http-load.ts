import net from 'node:net';

/**
 * The evenly paced open loop's HTTP client: keep-alive HTTP/1.1 over plain sockets, one request in flight
 * per socket, each socket reading into one reused buffer. Node's http client allocates request, response,
 * header and chunk objects per call; at a thousand calls a second on two cores its own collector paused
 * the loader for 8–19 ms at a time, and a paused loader stamps its pause on every answer it was due to
 * read. This client allocates a request string and a few numbers per call.
 *
 * It understands what the service sends: Content-Length bodies, and chunked bodies (read to the last chunk).
 */
export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Pending {
  bytes: Buffer;
  done: (status: number) => void;
  fail: (err: Error) => void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

class RawConnection {
  private readonly socket: net.Socket;
  /** Settles once the socket is connected (or has failed). */
  readonly connected: Promise<void>;
  private current: Pending | undefined;
  /** Header bytes seen so far for the current answer (headers are small; bodies are only counted). */
  private head = '';
  private status = 0;
  /** Body bytes still to come (Content-Length). */
  private remaining = 0;
  /** True while reading a chunked body, which ends with a zero-length chunk. */
  private chunked = false;
  private chunkedTail = '';
  private readonly readBuffer = Buffer.allocUnsafe(64 * 1024);

  constructor(
    host: string,
    port: number,
    private readonly onIdle: (c: RawConnection) => void,
    onClose: (c: RawConnection) => void,
  ) {
    this.socket = net.connect({
      host,
      port,
      noDelay: true,
      onread: { buffer: this.readBuffer, callback: (n: number, buf: Uint8Array) => this.read(n, buf as Buffer) },
    } as net.NetConnectOpts);
    this.connected = new Promise((resolve) => {
      this.socket.once('connect', resolve);
      this.socket.once('close', resolve);
    });
    this.socket.on('error', () => {}); // 'close' follows
    this.socket.on('close', () => {
      const p = this.current;
      this.current = undefined;
      p?.fail(new Error('connection closed'));
      onClose(this);
    });
  }

  send(p: Pending): void {
    this.current = p;
    this.head = '';
    this.status = 0;
    this.remaining = 0;
    this.chunked = false;
    this.chunkedTail = '';
    this.socket.write(p.bytes);
  }

  close(): void {
    this.socket.destroy();
  }

  private read(n: number, buf: Buffer): boolean {
    if (!this.current) return true;
    let at = 0;
    if (!this.status) {
      // Still in the headers: find their end in this read, or straddling the previous one.
      let upTo = buf.subarray(0, n).indexOf(HEADER_END);
      if (upTo !== -1) upTo += 4;
      else {
        const tail = this.head.slice(-3);
        const k = (tail + buf.toString('latin1', 0, Math.min(3, n))).indexOf('\r\n\r\n');
        if (k === -1) {
          this.head += buf.toString('latin1', 0, n);
          return true;
        }
        upTo = k + 4 - tail.length;
      }
      this.head += buf.toString('latin1', 0, upTo);
      at = upTo;
      const head = this.head.toLowerCase();
      this.status = Number(head.slice(9, 12));
      const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
      if (length) this.remaining = Number(length[1]);
      else this.chunked = /\r\ntransfer-encoding:[^\r]*chunked/.test(head);
    }
    if (this.chunked) {
      // A chunked body ends with a zero-length chunk: "0\r\n\r\n" at the very end of what arrived.
      this.chunkedTail = (this.chunkedTail + buf.toString('latin1', Math.max(at, n - 7), n)).slice(-7);
      if (this.chunkedTail.endsWith('\r\n0\r\n\r\n') || this.chunkedTail === '0\r\n\r\n') this.chunked = false;
    } else {
      this.remaining -= n - at;
    }
    if (!this.chunked && this.remaining <= 0) {
      const p = this.current;
      this.current = undefined;
      p.done(this.status);
      this.onIdle(this);
    }
    return true;
  }
}

/** A fixed set of keep-alive connections; a request waits for a free one (its latency still runs from its scheduled instant). */
export class RawHttpClient {
  private readonly idle: RawConnection[] = [];
  private readonly all = new Set<RawConnection>();
  private readonly waiting: Pending[] = [];
  private readonly hostHeader: string;
  private closing = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
    connections: number,
  ) {
    this.hostHeader = `${host}:${port}`;
    for (let i = 0; i < connections; i += 1) this.idle.push(this.open());
  }

  /** Resolves when every socket has connected, so that a paced run's clock does not include the handshakes. */
  async ready(): Promise<void> {
    await Promise.all([...this.all].map((c) => c.connected));
  }

  request(r: RawRequest): Promise<number> {
    const body = r.body ?? '';
    let text = `${r.method ?? 'GET'} ${r.path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n`;
    for (const [k, v] of Object.entries(r.headers ?? {})) text += `${k}: ${v}\r\n`;
    if (body || (r.method && r.method !== 'GET')) text += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    text += `\r\n${body}`;
    return new Promise<number>((done, fail) => {
      const p: Pending = { bytes: Buffer.from(text), done, fail };
      const conn = this.idle.pop();
      if (conn) conn.send(p);
      else this.waiting.push(p);
    });
  }

  close(): void {
    this.closing = true;
    for (const c of this.all) c.close();
  }

  private open(): RawConnection {
    const c = new RawConnection(
      this.host,
      this.port,
      (conn) => this.release(conn),
      (conn) => {
        // The server closed it (an idle timeout, say): replace it so the pool keeps its size.
        this.all.delete(conn);
        const at = this.idle.indexOf(conn);
        if (at !== -1) this.idle.splice(at, 1);
        if (!this.closing) this.release(this.open());
      },
    );
    this.all.add(c);
    return c;
  }

  private release(conn: RawConnection): void {
    const next = this.waiting.shift();
    if (next) conn.send(next);
    else this.idle.push(conn);
  }
}
