import { UsageError } from '../errors.js';

/** More processes than this is a typo, not a machine. */
const MOST_WORKERS = 256;

/**
 * `--workers N`: how many processes serve behind one port. `auto` is one per core (the
 * caller says how many it has); 1 is a single process, as without the option.
 */
export function parseWorkers(value: string | number, cores: number): number {
  const given = String(value).trim();
  if (given === 'auto') return Math.max(1, cores);
  const count = /^\d+$/.test(given) ? Number(given) : NaN;
  if (!Number.isInteger(count) || count < 1 || count > MOST_WORKERS) throw new UsageError(`--workers takes a whole number of processes from 1 to ${MOST_WORKERS}, or auto (one per core); got ${JSON.stringify(given)}`);
  return count;
}
