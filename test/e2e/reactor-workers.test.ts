import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { EXAMPLE_SITE, temporaryDirectory } from '../support/paths.js';
import { startPostgres } from '../support/postgres.js';
import { failingServe, startServe, type ServeProcess } from '../support/serve-process.js';

const article = (id: string) => ({ id, title: `Title ${id}`, body: `Body of ${id}` });
/** Each request on a connection of its own: the primary hands connections to the workers in turn. */
const fresh = { Connection: 'close' };
/**
 * A connection node:cluster handed to a worker as it was killed is never answered: a client
 * gives up on it (and takes the write as not acknowledged), as a real client would.
 */
const patience = () => AbortSignal.timeout(5000);
const post = (url: string, item: unknown) => fetch(`${url}/api/v1/data/articles`, { method: 'POST', headers: { ...fresh, 'Content-Type': 'application/json' }, body: JSON.stringify(item), signal: patience() });
/** The pid of the process that answered: the first part of its request id. */
const answeredBy = (response: Response) => parseInt(response.headers.get('x-request-id')!.split('-')[0]!, 36);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
/** `explain`: what to add to the error when it times out, to tell a later reader what the processes said. */
const until = async (done: () => boolean | Promise<boolean>, what: string, explain?: () => string) => {
  for (let waited = 0; !(await done()); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting until ${what}${explain ? `\n${explain()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** The requests and writes the reactor has counted, by /introspect/metrics and by /metrics. */
const counted = async (url: string) => {
  const { requestsTotal } = (await (await fetch(`${url}/introspect/metrics`, { headers: fresh, signal: patience() })).json()) as { requestsTotal: number };
  const prometheus = await (await fetch(`${url}/metrics`, { headers: fresh, signal: patience() })).text();
  const sum = (name: string) => [...prometheus.matchAll(new RegExp(`^${name}\\{[^}]*\\} (\\d+)$`, 'gm'))].reduce((total, match) => total + Number(match[1]), 0);
  return { introspected: requestsTotal, prometheus: sum('pkg_http_requests_total'), writes: sum('pkg_overlay_writes_total') };
};

describe('pkg reactor serve --workers 2 (file store)', () => {
  let reactor: ServeProcess;
  /** Requests this test sent, each recorded by the worker that answered it. */
  let sent = 0;
  const get = (path: string) => (sent++, fetch(`${reactor.url}${path}`, { headers: fresh }));
  const workers = new Set<number>();

  beforeAll(async () => {
    reactor = await startServe([EXAMPLE_SITE, '--workers', '2', '--log-format', 'json']);
  });
  afterAll(async () => {
    await reactor.stop('SIGKILL');
  });

  it('prints one start line, with the port the workers share', () => {
    const starts = reactor.stdout().split('\n').filter((line) => line.includes('Reactor listening on'));
    expect(starts).toHaveLength(1);
    const start = JSON.parse(starts[0]!) as { url: string; workdir: string; temporaryWorkdir: boolean; workers: number };
    expect(start.url).toBe(reactor.url);
    expect(start.workers).toBe(2);
    expect(start.url).not.toMatch(/:0$/);
    expect(start.temporaryWorkdir).toBe(true);
  });

  it('lands concurrent POSTs exactly once, and every later GET, whichever worker answers, lists them all', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `many-${i}`);
    const answers = await Promise.all(ids.map((id) => (sent++, post(reactor.url, article(id)))));
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 201));
    for (const answer of answers) workers.add(answeredBy(answer));
    for (let i = 0; i < 6; i++) {
      const answer = await get('/api/v1/data/articles');
      workers.add(answeredBy(answer));
      const listed = ((await answer.json()) as Array<{ id: string }>).map((item) => item.id);
      expect(listed.filter((id) => id.startsWith('many-')).sort()).toEqual([...ids].sort());
      expect(new Set(listed).size).toBe(listed.length);
    }
    expect(workers.size).toBe(2);
    expect(workers.has(reactor.child.pid!)).toBe(false);
  });

  it('gives a duplicate id one 201 and one 409, whichever workers took them', async () => {
    const answers = await Promise.all([0, 1].map(() => (sent++, post(reactor.url, article('twice')))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
  });

  it('counts the requests of both workers in /introspect/metrics, and lists both workers\' lines in the package log', async () => {
    const metrics = (await (await get('/introspect/metrics')).json()) as { requestsTotal: number };
    // The metrics request itself is counted once it is answered.
    expect(metrics.requestsTotal).toBe(sent - 1);
    const { logs } = (await (await get('/package/example-site/logs?lines=1000')).json()) as { logs: string[] };
    expect(logs.filter((line) => / POST \/api\/v1\/data\/articles -> (201|409)$/.test(line))).toHaveLength(62);
    const prometheus = await (await get('/metrics')).text();
    const writes = /^pkg_overlay_writes_total\{mount="\/"\} (\d+)$/m.exec(prometheus);
    expect(Number(writes?.[1])).toBe(61);
  });

  it('serves a file written through one worker from every worker, and a delete there is a 404 everywhere', async () => {
    const written = await fetch(`${reactor.url}/written/note.txt`, { method: 'PUT', headers: { ...fresh, 'Content-Type': 'text/plain' }, body: 'one note' });
    expect(written.status).toBe(200);
    const readers = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const answer = await fetch(`${reactor.url}/written/note.txt`, { headers: fresh });
      readers.add(answeredBy(answer));
      expect([answer.status, await answer.text()]).toEqual([200, 'one note']);
    }
    expect((await fetch(`${reactor.url}/written/note.txt`, { method: 'DELETE', headers: fresh })).status).toBe(204);
    for (let i = 0; i < 6; i++) {
      const answer = await fetch(`${reactor.url}/written/note.txt`, { headers: fresh });
      readers.add(answeredBy(answer));
      expect(answer.status).toBe(404);
    }
    expect(readers.size).toBe(2);
  });

  it('lets one of concurrent conditional content PUTs through, whichever workers take them: If-None-Match: * creates once, If-Match names one version', async () => {
    const put = (path: string, body: string, condition: Record<string, string>) => fetch(`${reactor.url}${path}`, { method: 'PUT', headers: { ...fresh, ...condition, 'Content-Type': 'text/plain' }, body });
    for (let round = 0; round < 3; round++) {
      const created = await Promise.all(Array.from({ length: 12 }, (_, i) => put(`/race/new-${round}.txt`, `v${i}`, { 'If-None-Match': '*' })));
      expect(created.map((answer) => answer.status).sort()).toEqual([200, ...Array<number>(11).fill(412)]);
      const tag = (await fetch(`${reactor.url}/race/new-${round}.txt`, { headers: fresh })).headers.get('etag')!;
      const updated = await Promise.all(Array.from({ length: 12 }, (_, i) => put(`/race/new-${round}.txt`, `w${i}`, { 'If-Match': tag })));
      expect(updated.map((answer) => answer.status).sort()).toEqual([200, ...Array<number>(11).fill(412)]);
    }
  });

  it('saves while other workers write and delete content: the files hold still for the save', async () => {
    const paths = Array.from({ length: 10 }, (_, i) => `/churn/f${i}.txt`);
    const churn = async () => {
      for (let k = 0; k < 4; k++)
        for (const path of paths) {
          await fetch(`${reactor.url}${path}`, { method: 'PUT', headers: { ...fresh, 'Content-Type': 'text/plain' }, body: `k${k}` });
          await fetch(`${reactor.url}${path}`, { method: 'DELETE', headers: fresh });
        }
    };
    const saves = async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await fetch(`${reactor.url}/package/example-site/save`, { method: 'POST', headers: fresh })).status);
      return statuses;
    };
    const [statuses] = await Promise.all([saves(), churn(), churn()]);
    expect(statuses).toEqual(Array<number>(10).fill(200));
  });

  it('stops every worker on SIGTERM and removes the temporary workdir, once', async () => {
    const start = JSON.parse(reactor.stdout().split('\n').find((line) => line.includes('Reactor listening on'))!) as { workdir: string };
    expect(existsSync(start.workdir)).toBe(true);
    expect(await reactor.stop('SIGTERM')).toBe(0);
    for (const pid of workers) await until(() => !alive(pid), `worker ${pid} exited`);
    expect(existsSync(start.workdir)).toBe(false);
    expect(reactor.stdout().split('\n').filter((line) => line.includes('Shutting down'))).toHaveLength(1);
    expect(reactor.stderr()).toBe('');
  });
});

describe('pkg reactor serve --workers, other ways', () => {
  it('restarts a worker killed under write load, and loses no acknowledged write', async () => {
    const reactor = await startServe([EXAMPLE_SITE, '--workers', '2', '--log-format', 'json']);
    let stop = false;
    try {
      expect((await post(reactor.url, article('warm-up'))).status).toBe(201);
      const acknowledged: string[] = ['warm-up'];
      const workers = new Set<number>();
      const writer = async (writer: number) => {
        for (let n = 0; !stop; n++) {
          const id = `w${writer}-${n}`;
          try {
            const answer = await post(reactor.url, article(id));
            if (answer.status === 201) acknowledged.push(id);
            workers.add(answeredBy(answer));
          } catch (error) {
            // A connection the killed worker held: not acknowledged.
            failures.push(error instanceof Error ? error.message : String(error));
          }
        }
      };
      const failures: string[] = [];
      const writers = Array.from({ length: 6 }, (_, n) => writer(n));
      await until(() => workers.size === 2, 'both workers answered', () => `answered by: ${[...workers].join(', ')}; ${acknowledged.length} acknowledged; failures: ${failures.slice(-3).join(' | ')}\nstdout: ${reactor.stdout().slice(-1500)}\nstderr: ${reactor.stderr().slice(-1500)}`);
      const victim = [...workers][0]!;
      // The reactor has been up a while when the worker is started again: its uptime is the reactor's, not the new process's.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const countedBefore = await counted(reactor.url);
      process.kill(victim, 'SIGKILL');
      // A warning: with --log-format json, a JSON line on stdout.
      await until(() => reactor.stdout().includes(`worker process ${victim} was killed by SIGKILL; starting another`), 'the primary restarted the worker');
      const before = acknowledged.length;
      await until(() => acknowledged.length > before + 20, 'writes go on after the restart');
      // The killed worker's requests, counted when they were last gathered, stay in the reactor's totals: no counter goes back.
      const countedAfter = await counted(reactor.url);
      expect(countedAfter.introspected).toBeGreaterThan(countedBefore.introspected);
      expect(countedAfter.prometheus).toBeGreaterThan(countedBefore.prometheus);
      expect(countedAfter.writes).toBeGreaterThan(countedBefore.writes);
      stop = true;
      await Promise.all(writers);
      const listed = new Set(((await (await fetch(`${reactor.url}/api/v1/data/articles`, { headers: fresh, signal: patience() })).json()) as Array<{ id: string }>).map((item) => item.id));
      expect(acknowledged.filter((id) => !listed.has(id))).toEqual([]);
      // The new worker serves once it has loaded: both answer again, the killed one never.
      const after = new Set<number>();
      await until(async () => (after.add(answeredBy(await fetch(`${reactor.url}/`, { headers: fresh, signal: patience() }))), after.size === 2), 'two workers answer again');
      expect(after.has(victim)).toBe(false);
      const uptimes = new Map<number, number>();
      await until(async () => {
        const answer = await fetch(`${reactor.url}/introspect/status`, { headers: fresh, signal: patience() });
        uptimes.set(answeredBy(answer), ((await answer.json()) as { uptime: number }).uptime);
        return uptimes.size === 2;
      }, 'both workers told their uptime');
      const [one, two] = [...uptimes.values()];
      expect(Math.min(one!, two!)).toBeGreaterThanOrEqual(2);
      expect(Math.abs(one! - two!)).toBeLessThanOrEqual(1);
    } finally {
      stop = true;
      expect(await reactor.stop('SIGTERM')).toBe(0);
    }
  });

  it('leaves no worker running when the primary is killed', async () => {
    // A killed primary cleans nothing up: the workdir is the test's.
    const workdir = temporaryDirectory('cap-workers-killed-');
    try {
      const reactor = await startServe([EXAMPLE_SITE, '--workers', '2', '--log-format', 'json', '--workdir', workdir.path]);
      const workers = new Set<number>();
      try {
        await until(async () => (workers.add(answeredBy(await fetch(`${reactor.url}/`, { headers: fresh, signal: patience() }))), workers.size === 2), 'both workers answered');
      } finally {
        expect(await reactor.stop('SIGKILL')).toBeNull();
      }
      for (const pid of workers) await until(() => !alive(pid), `worker ${pid} exited after its primary`);
    } finally {
      workdir.remove();
    }
  });

  it('--workers auto serves and stops cleanly', async () => {
    const reactor = await startServe([EXAMPLE_SITE, '--workers', 'auto']);
    expect((await fetch(`${reactor.url}/`)).status).toBe(200);
    expect(reactor.stdout().match(/Reactor listening on/g)).toHaveLength(1);
    // One per core: a machine of one core runs the reactor as one process, and says nothing of workers.
    const cores = availableParallelism();
    if (cores > 1) expect(reactor.stdout()).toContain(`Workers: ${cores} processes`);
    else expect(reactor.stdout()).not.toContain('Workers:');
    expect(await reactor.stop('SIGINT')).toBe(0);
  });

  it.each(['0', 'x'])('--workers %s is a usage error, not a stack trace', async (given) => {
    const failed = await failingServe([EXAMPLE_SITE, '--workers', given]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^error: UsageError: --workers takes a whole number/m);
    expect(failed.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('pkg reactor serve --workers 2 --overlay postgres://...', () => {
  it('has each worker write to the database itself: concurrent POSTs land once, every worker lists them, a duplicate id is a 409', async () => {
    const postgres = await startPostgres();
    try {
      const reactor = await startServe([EXAMPLE_SITE, '--workers', '2', '--log-format', 'json', '--overlay', postgres.url(await postgres.createDatabase())]);
      try {
        const ids = Array.from({ length: 40 }, (_, i) => `db-${i}`);
        const answers = await Promise.all([...ids, 'db-0'].map((id) => post(reactor.url, article(id))));
        expect(answers.map((answer) => answer.status).sort()).toEqual([...ids.map(() => 201), 409].sort());
        const workers = new Set(answers.map(answeredBy));
        for (let i = 0; i < 6; i++) {
          const answer = await fetch(`${reactor.url}/api/v1/data/articles`, { headers: fresh, signal: patience() });
          workers.add(answeredBy(answer));
          const listed = ((await answer.json()) as Array<{ id: string }>).map((item) => item.id).filter((id) => id.startsWith('db-'));
          expect(listed.sort()).toEqual([...ids].sort());
        }
        expect(workers.size).toBe(2);
      } finally {
        expect(await reactor.stop('SIGTERM')).toBe(0);
      }
    } finally {
      await postgres.stop();
    }
  });
});
