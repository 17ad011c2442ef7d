import type { ReactorProcesses } from '../ports/reactor-processes.js';
import type { RequestLog } from './request-log.js';

export interface RequestCounts {
  requestsTotal: number;
  requestsByStatus: Record<string, number>;
}

/** The requests several processes answered, counted as one reactor's: totals and per-status counts summed. */
export function sumRequestCounts(reports: readonly RequestCounts[]): RequestCounts {
  const byStatus = new Map<string, number>();
  let requestsTotal = 0;
  for (const report of reports) {
    requestsTotal += report.requestsTotal;
    for (const [status, count] of Object.entries(report.requestsByStatus)) byStatus.set(status, (byStatus.get(status) ?? 0) + count);
  }
  const requestsByStatus: Record<string, number> = {};
  for (const [status, count] of [...byStatus].sort((a, b) => Number(a[0]) - Number(b[0]))) requestsByStatus[status] = count;
  return { requestsTotal, requestsByStatus };
}

/**
 * The last `count` access lines of several processes as one log, oldest first. A line
 * starts with its ISO time, so lines order by their text's start; lines of one process
 * keep their order (a stable sort), as they were written.
 */
export function mergeLogLines(lists: readonly (readonly string[])[], count: number): string[] {
  const all = lists.flatMap((lines) => lines.map((line) => ({ line, at: line.slice(0, line.indexOf(' ')) })));
  all.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return all.slice(Math.max(0, all.length - count)).map((entry) => entry.line);
}

/**
 * The access log and request counts of a reactor: this process's own, or, where the
 * reactor runs as several processes, every process's gathered and put together.
 */
export class ReactorLog {
  constructor(
    private readonly local: RequestLog,
    private readonly processes: ReactorProcesses | undefined,
  ) {
    processes?.answer('requests', () => local.metrics());
    processes?.answer('logs', (count) => local.last(count));
  }

  async counts(): Promise<RequestCounts> {
    if (!this.processes) return this.local.metrics();
    return sumRequestCounts((await this.processes.gather('requests', 0)) as RequestCounts[]);
  }

  async last(count: number): Promise<string[]> {
    if (!this.processes) return this.local.last(count);
    return mergeLogLines((await this.processes.gather('logs', count)) as string[][], count);
  }
}
