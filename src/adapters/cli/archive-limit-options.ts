import type { Options } from 'yargs';
import { UsageError } from '../../domain/errors.js';
import { DEFAULT_ARCHIVE_LIMITS, limitWording, parseLimit } from '../../domain/package/archive-limits.js';

const LIMITS = {
  'max-expanded-size': { env: 'PKG_MAX_EXPANDED_SIZE', what: 'total size an archive may expand to (sizes may end in K, M, G or T)', fallback: '4G' },
  'max-ratio': { env: 'PKG_MAX_RATIO', what: 'how many times larger than its compressed form an entry over 1 MiB, or a whole archive, may expand', fallback: String(DEFAULT_ARCHIVE_LIMITS.maxRatio) },
  'max-entries': { env: 'PKG_MAX_ENTRIES', what: 'how many entries an archive may hold', fallback: String(DEFAULT_ARCHIVE_LIMITS.maxEntries) },
} as const;

/** Global options: every command that reads an archive keeps within them (they bound what a zip bomb can cost). */
export const ARCHIVE_LIMIT_OPTIONS = Object.fromEntries(
  Object.entries(LIMITS).map(([name, { env, what, fallback }]) => [name, { type: 'string', global: true, describe: what, defaultDescription: `$${env} or ${fallback}` } satisfies Options]),
) as Record<keyof typeof LIMITS, Options>;

/** The options override the environment; archives are opened with the environment's limits (worker processes inherit them). */
export function applyArchiveLimits(argv: Record<string, unknown>): void {
  for (const [name, { env }] of Object.entries(LIMITS)) {
    const value = argv[name];
    if (value === undefined) continue;
    const size = name === 'max-expanded-size';
    if (typeof value !== 'string' || parseLimit(value, size) === undefined) throw new UsageError(`--${name} ${limitWording(size)}, not ${JSON.stringify(value)}`);
    process.env[env] = value;
  }
}
