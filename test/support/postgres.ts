import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './nginx-registry.js';

/** Debian's PostgreSQL server programs: /usr/lib/postgresql/<version>/bin. */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  if (version === undefined || !existsSync(join(root, version, 'bin/initdb'))) throw new Error('PostgreSQL server programs not found: apt-get install postgresql');
  return join(root, version, 'bin');
}

/** The role the test server asks a password of; a test creates it (CREATE ROLE ... LOGIN PASSWORD ...). */
export const PASSWORD_ROLE = 'pkg_password';

export interface TestPostgres {
  port: number;
  /** `postgres://pkg@127.0.0.1:<port>/<database>`. */
  url(database: string): string;
  /** A new empty database, named for one test. */
  createDatabase(): Promise<string>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Stops the server and keeps its data, as an outage would: `restart` brings it back on the same port. */
  halt(): Promise<void>;
  restart(): Promise<void>;
}

/**
 * A real PostgreSQL of its own: initdb into a temporary directory and the server on a free
 * loopback port, in the foreground as a child of the test. PostgreSQL refuses to run as
 * root, so under root it runs as the `postgres` user the Debian package made.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBin();
  const data = mkdtempSync(join(tmpdir(), 'pkg-postgres-'));
  const asUser = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  if ('uid' in asUser) chownSync(data, asUser.uid!, asUser.gid!);
  execFileSync(join(bin, 'initdb'), ['-D', join(data, 'db'), '-U', 'pkg', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], { ...asUser, stdio: 'pipe' });
  // Every role logs in without a password but PASSWORD_ROLE, which must give one (SCRAM), as most servers ask.
  const hba = join(data, 'db', 'pg_hba.conf');
  writeFileSync(hba, `host all ${PASSWORD_ROLE} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, 'utf8')}`);
  const port = await freePort();
  let server: ChildProcess | undefined;
  const start = async () => {
    server = spawn(join(bin, 'postgres'), ['-D', join(data, 'db'), '-p', String(port), '-k', data, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'], { ...asUser, stdio: 'ignore' });
    await waitUntilReady(port);
  };
  await start();
  let databases = 0;
  const url = (database: string) => `postgres://pkg@127.0.0.1:${port}/${database}`;
  const halt = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // Fast shutdown: sessions are ended, as when the database goes away under a reactor.
      child.kill('SIGINT');
    });
  };
  return {
    port,
    url,
    async createDatabase() {
      const name = `test_${++databases}`;
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return name;
    },
    async stop() {
      await halt();
      rmSync(data, { recursive: true, force: true });
    },
    halt,
    async restart() {
      await halt();
      await start();
    },
  };
}

async function waitUntilReady(port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const client = new pg.Client({ connectionString: `postgres://pkg@127.0.0.1:${port}/postgres`, connectionTimeoutMillis: 1000 });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
