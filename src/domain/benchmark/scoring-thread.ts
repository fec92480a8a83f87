import { parentPort } from 'node:worker_threads';
import { withOthers } from './benchmark-inputs';
import { scoreRecord } from './benchmark-record';
import type { ScoreRequest, ScoreReply } from './record-scorer';

/**
 * The body of the scoring thread (record-scorer.ts): scores each record it is sent and answers with it. Scoring is pure
 * computation over the inputs the folder read, so the thread needs nothing but the scoring modules (and benchmark-inputs.ts
 * to build everyone else's forecasts from their text, which is most of a record's rows at scale).
 */
parentPort?.on('message', (req: ScoreRequest) => {
  let reply: ScoreReply;
  try {
    const inputs = req.othersJson === undefined ? req.inputs : withOthers(req.inputs, req.othersJson);
    reply = { id: req.id, record: scoreRecord(req.season, inputs, req.seedLabel) };
  } catch (err) {
    reply = { id: req.id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  parentPort!.postMessage(reply);
});
