/**
 * `npm run bench:soak`: memory over time under mixed agents (REST, JSON-RPC, MCP) with a fault in the middle,
 * on PostgreSQL (its connections terminated) and on the embedded database (the process stalled), each idle
 * first. SOAK_MINUTES sets the load time of each (default 3); SOAK_AGENTS the agents (default 12);
 * SOAK_COMPARE_FLAGS=1 also runs both databases without npm start's heap flags, to weigh them.
 * Targets (issue 20): idle RSS ≤ 150 MB on PostgreSQL and ≤ 300 MB embedded, loaded ≤ 2× idle, a flat slope.
 * Last line: one JSON object; `rss` is the PostgreSQL run's.
 */
import { runSoak, type SoakFigures } from './support/soak';
import { benchSetting, SMOKE } from './support/smoke';

const MINUTES = benchSetting('SOAK_MINUTES', 3, 0.05);
const AGENTS = benchSetting('SOAK_AGENTS', 12, 2);
const IDLE_SECONDS = SMOKE ? 2 : 20;

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const run = (database: 'postgres' | 'embedded', startFlags = true) =>
    runSoak({ database, idleSeconds: IDLE_SECONDS, loadSeconds: MINUTES * 60, agents: AGENTS, startFlags, log });
  const show = (name: string, f: SoakFigures) =>
    console.log(
      `${name}: RSS idle ${f.rss.idleMb} MB, loaded ${f.rss.loadedMb} MB (${(f.rss.loadedMb / f.rss.idleMb).toFixed(2)}× idle), after ${f.afterMb} MB, ` +
        `slope ${f.rss.slopeMbPerMin} MB/min; heap idle ${f.heap.idleMb}, loaded ${f.heap.loadedMb}, slope ${f.heap.slopeMbPerMin} MB/min; ` +
        `live heap after ${f.liveHeap.collections} full collections ${f.liveHeap.firstMb} → ${f.liveHeap.lastMb} MB (slope ${f.liveHeap.slopeMbPerMin} MB/min); ` +
        `${f.requests.perSecond} req/s, p50 ${f.requests.p50Ms} ms, p99 ${f.requests.p99Ms} ms (ok ${f.requests.ok}, refused ${f.requests.refused}, 503 ${f.requests.unavailable}, failed ${f.requests.failed}); ` +
        `fault: ${f.fault.kind}, service alive: ${f.fault.serviceAlive}; audit violations: ${f.auditViolations}`,
    );
  const postgres = await run('postgres');
  show('postgres', postgres);
  const embedded = await run('embedded');
  show('embedded', embedded);
  const compare = process.env.SOAK_COMPARE_FLAGS === '1';
  const withoutFlags = compare ? await run('postgres', false) : undefined;
  if (withoutFlags) show('postgres without the heap flags', withoutFlags);
  const embeddedWithoutFlags = compare ? await run('embedded', false) : undefined;
  if (embeddedWithoutFlags) show('embedded without the heap flags', embeddedWithoutFlags);
  const targets = {
    idlePostgresMb: 150,
    idleEmbeddedMb: 300,
    loadedOverIdle: 2,
  };
  const met =
    postgres.rss.idleMb <= targets.idlePostgresMb &&
    embedded.rss.idleMb <= targets.idleEmbeddedMb &&
    postgres.rss.loadedMb <= targets.loadedOverIdle * postgres.rss.idleMb &&
    embedded.rss.loadedMb <= targets.loadedOverIdle * embedded.rss.idleMb;
  console.log(
    JSON.stringify({
      bench: 'soak',
      minutes: MINUTES,
      agents: AGENTS,
      rss: postgres.rss,
      heap: postgres.heap,
      postgres,
      embedded,
      ...(withoutFlags ? { postgresWithoutHeapFlags: withoutFlags } : {}),
      ...(embeddedWithoutFlags ? { embeddedWithoutHeapFlags: embeddedWithoutFlags } : {}),
      targets,
      met,
    }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
