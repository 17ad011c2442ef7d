import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { Reactor } from '../../src/application/serving/reactor.js';
import { SERVICE, USE_CASE } from '../../src/composition/service-ids.js';
import { productionContainer, productionOpener } from '../support/production-container.js';
import { VALID_METADATA } from '../support/demo-package.js';
import { temporaryDirectory } from '../support/paths.js';
import { SETTINGS, startReactor } from '../support/reactor-fixture.js';

const work = temporaryDirectory('cap-sqlite-dataset-');
let fixture: Awaited<ReturnType<typeof startReactor>>;
beforeAll(async () => {
  const root = join(work.path, 'pkg');
  mkdirSync(join(root, 'data'), { recursive: true });
  mkdirSync(join(root, 'content'));
  writeFileSync(join(root, 'metadata.json'), JSON.stringify(VALID_METADATA));
  writeFileSync(join(root, 'content/index.html'), '<p>home</p>');
  writeFileSync(join(root, 'data/notes.json'), JSON.stringify([{ id: 'n1' }]));
  writeFileSync(join(root, 'storage.json'), JSON.stringify({ storage: { dataSets: { people: { databaseFile: 'data/people.db', table: 'people' }, notes: { source: 'data/notes.json' } } } }));
  // A database made by the sqlite3 tool itself, not by the library that reads it.
  execFileSync('sqlite3', [join(root, 'data/people.db'), "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, score REAL); INSERT INTO people VALUES (1, 'Ada', 9.5), (2, 'Grace', NULL);"]);
  fixture = await startReactor(productionOpener(), [{ source: root }], { workdir: join(work.path, 'workdir') });
});
afterAll(async () => {
  await fixture.stop();
  work.remove();
});

describe('SQLite datasets', () => {
  it('are readable: rows as JSON objects, by id too', async () => {
    const http = request(fixture.http);
    const rows = await http.get('/api/v1/data/people').expect(200);
    expect(rows.body).toEqual([
      { id: 1, name: 'Ada', score: 9.5 },
      { id: 2, name: 'Grace', score: null },
    ]);
    expect(rows.headers['x-total-count']).toBe('2');
    await http.get('/api/v1/data/people/2').expect(200, { id: 2, name: 'Grace', score: null });
    await http.get('/api/v1/data/people/3').expect(404);
  });

  it('answer 501 to every write', async () => {
    const http = request(fixture.http);
    for (const attempt of [http.post('/api/v1/data/people').send({ id: 3, name: 'Linus' }), http.put('/api/v1/data/people/1').send({ name: 'x' }), http.delete('/api/v1/data/people/1')]) {
      const response = await attempt.expect(501);
      expect(response.body.error.code).toBe('DATASET_UNAVAILABLE');
      expect(response.body.error.message).toMatch(/SQLite/);
    }
  });

  it('are left out of GraphQL, which still serves the JSON datasets', async () => {
    const http = request(fixture.http);
    const result = await http.post('/graphql').send({ query: '{ __schema { queryType { fields { name } } } }' }).expect(200);
    expect(result.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name)).toEqual(['notes']);
  });
});

describe('SQLite datasets, validated', () => {
  const validate = (location: string) => productionContainer().get(USE_CASE.ValidatePackage).execute(location);
  const validateStorage = async (location: string) => (await validate(location)).checks.find((check) => check.check === 'storage')!;

  it('are opened by validate as the reactor opens them: rows counted, a file that is not a database or lacks its table fails storage', async () => {
    const storageOf = validateStorage;
    const root = join(work.path, 'pkg');
    expect(await storageOf(root)).toMatchObject({ passed: true, notes: expect.arrayContaining(['dataset people: 2 rows in table people of data/people.db']) });

    const broken = join(work.path, 'broken');
    cpSync(root, broken, { recursive: true });
    writeFileSync(join(broken, 'data/people.db'), 'not a database at all');
    const garbage = await storageOf(broken);
    expect(garbage.passed).toBe(false);
    // The reactor refuses it as validate does.
    await expect(Reactor.start([{ source: broken }], { ...SETTINGS, workdir: join(work.path, 'workdir-broken') }, productionContainer().get(SERVICE.ReactorDependencies))).rejects.toThrow('data/people.db: not a SQLite database');
    expect(garbage.errors).toEqual(['dataset people: data/people.db: not a SQLite database']);

    const tableless = join(work.path, 'tableless');
    cpSync(root, tableless, { recursive: true });
    writeFileSync(join(tableless, 'storage.json'), JSON.stringify({ storage: { dataSets: { people: { databaseFile: 'data/people.db', table: 'persons' } } } }));
    expect((await storageOf(tableless)).errors).toEqual([expect.stringMatching(/^dataset people: .*persons/)]);
  });

  it('fail on a REAL beyond what a JSON number carries, as a JSON data file does: it is served as null', async () => {
    const infinite = join(work.path, 'infinite');
    cpSync(join(work.path, 'pkg'), infinite, { recursive: true });
    execFileSync('sqlite3', [join(infinite, 'data/people.db'), "INSERT INTO people VALUES (3, 'Inf', 9e999);"]);
    expect((await validateStorage(infinite)).errors).toEqual(['dataset people: data/people.db holds a number beyond what JSON numbers carry (like 1e400): it is read as Infinity and served as null']);
  });

  it('refuse a database whose latest commits are still in its -wal file, as sqlite3 would show them and the reader cannot', async () => {
    const walled = join(work.path, 'walled');
    cpSync(join(work.path, 'pkg'), walled, { recursive: true });
    rmSync(join(walled, 'data/people.db'));
    // Copied while sqlite3 holds it open, before it folds the log back in on close.
    const db = join(walled, 'data/live.db');
    const copy = join(walled, 'data/people.db');
    execFileSync('sqlite3', [db, 'PRAGMA journal_mode = WAL;', 'PRAGMA wal_autocheckpoint = 0;', "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people VALUES (1, 'Ada');", `.system cp ${db} ${copy}; cp ${db}-wal ${copy}-wal`]);
    rmSync(db);
    expect(execFileSync('sqlite3', ['-readonly', copy, 'SELECT name FROM people'], { encoding: 'utf8' }).trim()).toBe('Ada');
    const message = 'data/people.db: data/people.db-wal holds writes not yet in the database file, which SQLite reads and this reader cannot: fold them in with sqlite3 data/people.db "PRAGMA wal_checkpoint(TRUNCATE)" and remove data/people.db-wal';
    expect((await validateStorage(walled)).errors).toEqual([`dataset people: ${message}`]);
    await expect(Reactor.start([{ source: walled }], { ...SETTINGS, workdir: join(work.path, 'workdir-walled') }, productionContainer().get(SERVICE.ReactorDependencies))).rejects.toThrow(message);
  });
});
