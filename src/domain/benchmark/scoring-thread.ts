import { parentPort } from 'node:worker_threads';
import { scoreRecord } from './benchmark-record';
import type { ScoreRequest, ScoreReply } from './record-scorer';

/**
 * The body of the scoring thread (record-scorer.ts): scores each record it is sent and answers with it. Scoring is pure
 * computation over the inputs the folder read, so the thread needs nothing but the scoring modules.
 */
parentPort?.on('message', (req: ScoreRequest) => {
  let reply: ScoreReply;
  try {
    reply = { id: req.id, record: scoreRecord(req.season, req.inputs, req.seedLabel) };
  } catch (err) {
    reply = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(reply);
});
