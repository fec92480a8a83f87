import { readdirSync, readFileSync } from 'node:fs';

/** /proc counts CPU time in ticks of USER_HZ, 100 a second on Linux. */
const MS_PER_TICK = 10;

/** CPU milliseconds this process has used (user and system). */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * CPU milliseconds used so far by every PostgreSQL process on this machine (backends and background workers), read
 * from /proc; null where there is no /proc or no PostgreSQL process in it (a remote database). CPU per operation
 * moves far less from run to run than latency does on a busy 2-core machine, which makes it the steadier side
 * of an A/B comparison. Each process's time is read from its schedstat (nanoseconds) where the kernel keeps one,
 * else from its stat (ticks of 10 ms, too coarse for a run of a second spread over a dozen processes).
 */
export function localPostgresCpuMs(): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let ms = 0;
  let found = false;
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const close = stat.lastIndexOf(')');
    if (!stat.slice(0, close).endsWith('(postgres')) continue;
    found = true;
    const ns = scheduledNs(pid);
    if (ns !== null) {
      ms += ns / 1e6;
      continue;
    }
    // Fields after the command: state is the 3rd of stat, utime and stime the 14th and 15th.
    const fields = stat.slice(close + 2).split(' ');
    ms += (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  }
  return found ? ms : null;
}

/** A process's time on a CPU so far, in nanoseconds, from /proc/<pid>/schedstat; null without one. */
function scheduledNs(pid: string): number | null {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns : null;
  } catch {
    return null;
  }
}
