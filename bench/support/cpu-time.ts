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
 * of an A/B comparison.
 */
export function localPostgresCpuMs(): number | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let ticks = 0;
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
    // Fields after the command: state is the 3rd of stat, utime and stime the 14th and 15th.
    const fields = stat.slice(close + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return found ? ticks * MS_PER_TICK : null;
}
