import { pacedStreams, replay, type PacedJob } from './harness';

/**
 * The evenly paced loader in a process of its own (harness.ts pacedLoadInChild): the bench process holds
 * the generated data, pools and results, and its collector's pauses would be counted as the service's
 * latency. This process holds the request list and the sockets only.
 */
process.once('message', (job: PacedJob) => {
  const { baseUrl, rate, seconds, connections, sliceSeconds } = job;
  pacedStreams(baseUrl, { rate, seconds, connections, sliceSeconds, streams: job.streams.map(replay) })
    .then((figures) => process.send!(figures, () => process.exit(0)))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
});
