import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BenchmarkInputs } from './benchmark-inputs';
import type { BenchmarkRecord } from './benchmark-record';
import type { Season } from './seasons';

/**
 * Scores one account's season from its inputs (benchmark-record.ts's scoreRecord), wherever that runs. `othersJson`:
 * everyone else's forecasts still as the database's text (benchmark-inputs.ts, readInputs), added to the inputs where
 * the record is scored (withOthers).
 */
export type RecordScorer = (season: Season, inputs: BenchmarkInputs, seedLabel: string, othersJson?: string) => Promise<BenchmarkRecord>;

export interface ScoreRequest {
  id: number;
  season: Season;
  inputs: BenchmarkInputs;
  seedLabel: string;
  othersJson?: string;
}
export type ScoreReply = { id: number; record: BenchmarkRecord; error?: undefined } | { id: number; error: string; record?: undefined };

/**
 * The thread's entry. Built, it is the compiled scoring-thread.js beside this file. The tests run the TypeScript source
 * (ts-jest), which a worker thread cannot load by itself: there the thread first teaches require to load `.ts` with
 * TypeScript's own transpileModule (the scoring modules and benchmark-inputs.ts import nothing else at run time), then
 * loads the same source.
 */
const ENTRY = path.join(__dirname, `scoring-thread${path.extname(__filename)}`);
const TS_BOOT = `
  const fs = require('node:fs');
  const ts = require('typescript');
  require.extensions['.ts'] = (m, file) => {
    const out = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    });
    m._compile(out.outputText, file);
  };
  require(require('node:worker_threads').workerData.entry);`;

/**
 * Scores records on a thread of their own (issue 52 item 1): a record's risk part alone held the event loop ~10 ms, and
 * every request waited behind it. One thread per process, started on first use; while nothing is asked of it, it does
 * not keep the process alive. A thread that dies fails what it was scoring (the folder's transaction rolls back and the
 * pairs stay queued) and the next record starts a new one.
 */
export class ThreadScorer {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: BenchmarkRecord) => void; reject: (e: Error) => void }>();

  readonly score: RecordScorer = (season, inputs, seedLabel, othersJson) =>
    new Promise<BenchmarkRecord>((resolve, reject) => {
      const worker = this.thread();
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, season, inputs, seedLabel, othersJson } satisfies ScoreRequest);
    });

  /** Stops the thread (what it was scoring fails). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const ts = ENTRY.endsWith('.ts');
    const w = new Worker(ts ? TS_BOOT : ENTRY, { eval: ts, workerData: { entry: ENTRY } });
    w.unref();
    w.on('message', (reply: ScoreReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) w.unref();
      if (reply.error !== undefined) p.reject(new Error(`scoring a record failed: ${reply.error}`));
      else p.resolve(reply.record);
    });
    const fail = (err: Error) => {
      if (this.worker === w) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the scoring thread exited (${code})`)));
    this.worker = w;
    return w;
  }
}

/** The process's one scoring thread: the live service's folder and every replay run's share it. */
let shared: ThreadScorer | undefined;
export function sharedScorer(): ThreadScorer {
  shared ??= new ThreadScorer();
  return shared;
}
