// A PostgreSQL of the bench's own: initdb into bench/out and the server on a free loopback
// port. PostgreSQL refuses to run as root, so under root it runs as Debian's `postgres` user.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OUT, freePort } from './lib.js';

export function postgresAvailable() {
  return existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').some((version) => existsSync(`/usr/lib/postgresql/${version}/bin/initdb`));
}

export async function startPostgres() {
  const version = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))[0];
  const bin = `/usr/lib/postgresql/${version}/bin`;
  const dir = join(OUT, 'postgres');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const user = process.getuid() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid);
  execFileSync(join(bin, 'initdb'), ['-D', join(dir, 'db'), '-U', 'pkg', '--auth=trust', '-E', 'UTF8', '--locale=C'], { ...user, stdio: 'pipe' });
  const port = await freePort();
  // fsync stays on: a write the reactor acknowledges is on disk, as with the file store.
  const server = spawn(join(bin, 'postgres'), ['-D', join(dir, 'db'), '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'], { ...user, stdio: 'ignore' });
  const psql = (sql) => execFileSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'pkg', '-d', 'postgres', '-qc', sql], { stdio: 'pipe' });
  for (let attempt = 0; ; attempt++) {
    try {
      psql('SELECT 1');
      break;
    } catch (error) {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  let databases = 0;
  return {
    createDatabase() {
      const name = `bench_${++databases}`;
      psql(`CREATE DATABASE ${name}`);
      return `postgres://pkg@127.0.0.1:${port}/${name}`;
    },
    stop: () =>
      new Promise((resolve) => {
        server.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        server.kill('SIGINT');
      }),
  };
}
