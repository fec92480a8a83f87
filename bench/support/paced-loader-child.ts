import { pacedLoad, replay, type PacedJob } from './harness';

/**
 * The evenly paced loader in a process of its own (harness.ts pacedLoadInChild): the bench process holds
 * the generated data, pools and results, and its collector's pauses would be counted as the service's
 * latency. This process holds the request list and the sockets only.
 */
process.once('message', (job: PacedJob) => {
  pacedLoad(job.baseUrl, { rate: job.rate, seconds: job.seconds, connections: job.connections, setup: replay(job.requests) })
    .then((figures) => process.send!(figures, () => process.exit(0)))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
});
