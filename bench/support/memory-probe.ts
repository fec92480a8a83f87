/**
 * Preloaded into the service by the soak bench (`node --require …/memory-probe.js`): sends the process's
 * memory figures to its parent over IPC once a second. Nothing happens when there is no IPC channel.
 *
 * `liveHeap` is the heap in use just after the latest full (mark-compact) collection: what survived it, so
 * garbage waiting for the next collection does not count. Its trend tells a leak from a heap that has not
 * been collected yet, which `heapUsed` alone cannot.
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';

if (process.send) {
  let liveHeap: { t: number; bytes: number } | undefined;
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) liveHeap = { t: Date.now(), bytes: process.memoryUsage().heapUsed };
    }
  });
  gcs.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    process.send?.({ probe: 'memory', t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, liveHeap });
  }, 1000);
  timer.unref();
  process.on('disconnect', () => {
    clearInterval(timer);
    gcs.disconnect();
  });
}
