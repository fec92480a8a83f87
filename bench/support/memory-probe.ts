/**
 * Preloaded into the service by the soak bench (`node --require …/memory-probe.js`): sends the process's
 * memory figures to its parent over IPC once a second. Nothing happens when there is no IPC channel.
 */
if (process.send) {
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    process.send?.({ probe: 'memory', t: Date.now(), rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external });
  }, 1000);
  timer.unref();
  process.on('disconnect', () => clearInterval(timer));
}
