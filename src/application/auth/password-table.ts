import { parseHtpasswd } from '../../domain/auth/htpasswd.js';
import { UsageError } from '../../domain/errors.js';
import type { LocalFiles } from '../ports/local-files.js';

/** The users of a password file and their hashes. */
export interface PasswordTable {
  users(): ReadonlyMap<string, string>;
  /** Whether refresh would look at the file now (it is time to, or a look is under way). */
  due(): boolean;
  /** Re-reads the file when it changed; true when it did. */
  refresh(): Promise<boolean>;
}

/** A password file inside a package: it cannot change while the package is served. */
export function fixedPasswordTable(text: string): PasswordTable {
  const users = parseHtpasswd(text);
  return { users: () => users, due: () => false, refresh: async () => false };
}

/** How often a changed password file on disk is noticed, at most. */
const RECHECK_MS = 1000;

/**
 * The password file deploy.json names, on disk. A request asks whether it changed at
 * most once a second, so an operator's `htpasswd` edit takes effect without a restart
 * and without a stat per request.
 */
export class FilePasswordTable implements PasswordTable {
  private current = new Map<string, string>();
  private version: string | undefined;
  private checkedAt = 0;
  private checking: Promise<boolean> | undefined;

  private constructor(
    private readonly path: string,
    private readonly files: LocalFiles,
    private readonly now: () => number,
  ) {}

  static async open(path: string, files: LocalFiles, now: () => number = Date.now): Promise<FilePasswordTable> {
    const table = new FilePasswordTable(path, files, now);
    await table.reload();
    if (table.version === undefined) throw new UsageError(`password file ${path} does not exist`);
    return table;
  }

  users(): ReadonlyMap<string, string> {
    return this.current;
  }

  due(): boolean {
    return this.checking !== undefined || this.now() - this.checkedAt >= RECHECK_MS;
  }

  refresh(): Promise<boolean> {
    if (this.checking) return this.checking;
    if (!this.due()) return Promise.resolve(false);
    this.checking = this.reload().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** True when the file changed; a file removed while serving leaves no user. */
  private async reload(): Promise<boolean> {
    this.checkedAt = this.now();
    const version = await this.files.version(this.path);
    if (version === this.version) return false;
    const bytes = version === undefined ? undefined : await this.files.read(this.path);
    this.version = version;
    this.current = parseHtpasswd(bytes === undefined ? '' : Buffer.from(bytes).toString('utf8'));
    return true;
  }
}
