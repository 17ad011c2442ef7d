import { describe, expect, it } from '@jest/globals';
import { ConfigParseError, InvalidItemError } from '../../../src/domain/errors.js';
import { DatasetIndex, nextFreeId } from '../../../src/domain/data/dataset-index.js';
import { asItem, checkItemId, checkNewItemId, idPolicyOf, itemsKeepingIds, itemIdOf } from '../../../src/domain/data/item-id.js';
import { formatOperation, parseOperationLog } from '../../../src/domain/data/operation-log.js';
import { checkTextBody, checkWritableContentPath } from '../../../src/domain/serving/content-write.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('item ids', () => {
  it('are the id field when present, else the 1-based index', () => {
    expect(itemIdOf({ id: 'a' }, 0)).toBe('a');
    expect(itemIdOf({ id: 7 }, 0)).toBe('7');
    expect(itemIdOf({ title: 'x' }, 4)).toBe('5');
    expect(itemIdOf('scalar', 0)).toBe('1');
  });

  it('refuses ids with a slash, "..", control characters, empty, overlong or of the wrong type', () => {
    for (const bad of ['a/b', 'a\\b', '..', 'x..y', '', 'a\u0000', 'x'.repeat(257), '\ud800', 'a\udfffb', null, true, {}, [], Number.NaN, Infinity]) {
      expect(() => checkItemId(bad)).toThrow(InvalidItemError);
    }
    expect(checkItemId('ok-id_1.2')).toBe('ok-id_1.2');
    expect(checkItemId(42)).toBe('42');
    expect(checkItemId('smile-\u{1F600}')).toBe('smile-\u{1F600}');
  });

  it('refuses "." as the id of a new item, which no URL can name, and still reads one an older overlay holds', () => {
    expect(() => checkNewItemId('.')).toThrow(InvalidItemError);
    expect(checkNewItemId('.a')).toBe('.a');
    expect(checkItemId('.')).toBe('.');
  });

  it('an item is a JSON object, never an array or a scalar', () => {
    for (const bad of [[1], 'text', 3, null, true]) expect(() => asItem(bad)).toThrow(InvalidItemError);
    expect(asItem({ a: 1 })).toEqual({ a: 1 });
  });

  it('new ids go into items the way the schema or the base items carry them', () => {
    expect(idPolicyOf({ properties: { id: { type: 'integer' } } }, [])).toEqual({ inItem: true, numeric: true });
    expect(idPolicyOf({ properties: { id: { type: 'string' } } }, [])).toEqual({ inItem: true, numeric: false });
    expect(idPolicyOf(undefined, [{ id: 'a' }])).toEqual({ inItem: true, numeric: false });
    expect(idPolicyOf(undefined, [{ id: 1 }])).toEqual({ inItem: true, numeric: true });
    expect(idPolicyOf(undefined, [{ title: 'no id' }]).inItem).toBe(false);
    expect(idPolicyOf({ type: 'object', additionalProperties: false, properties: { title: {} } }, []).inItem).toBe(false);
  });

  it('items saved back keep their ids: an item named by its position gets its id written in once the position names it no more', () => {
    const policy = { inItem: false, numeric: true };
    const entries = [['2', { t: 'y' }], ['3', { id: '3', t: 'q' }], ['4', { t: 'r' }], ['x', 5]] as const;
    expect(itemsKeepingIds(entries, policy, undefined)).toEqual([{ id: 2, t: 'y' }, { id: '3', t: 'q' }, { id: 4, t: 'r' }, 5]);
    expect(itemsKeepingIds([['1', { t: 'x' }], ['2', { t: 'y' }]], policy, undefined)).toEqual([{ t: 'x' }, { t: 'y' }]);
    expect(itemsKeepingIds([['07', { t: 'y' }]], policy, undefined)).toEqual([{ id: '07', t: 'y' }]);
    const closed = { type: 'object', additionalProperties: false, properties: { t: {} } };
    expect(itemsKeepingIds([['2', { t: 'y' }]], policy, closed)).toEqual([{ t: 'y' }]);
  });
});

describe('operation log', () => {
  const at = new Date('2026-11-23T10:00:00.000Z');
  const lines = [formatOperation({ op: 'create', id: 'a', item: { id: 'a' } }, at), formatOperation({ op: 'delete', id: 'a' }, at)].join('');

  it('writes the UTC time of each write as `at`, and reads lines without it (older versions wrote none) alike', () => {
    expect(lines.split('\n')[0]).toBe('{"op":"create","id":"a","item":{"id":"a"},"at":"2026-11-23T10:00:00.000Z"}');
    const old = parseOperationLog(bytes('{"op":"create","id":"a","item":{"id":"a"}}\n'), 'x');
    expect(old.operations).toEqual([{ op: 'create', id: 'a', item: { id: 'a' } }]);
  });

  it('reads back what it writes', () => {
    const parsed = parseOperationLog(bytes(lines), 'x.log.jsonl');
    expect(parsed.operations).toEqual([
      { op: 'create', id: 'a', item: { id: 'a' }, at: '2026-11-23T10:00:00.000Z' },
      { op: 'delete', id: 'a', at: '2026-11-23T10:00:00.000Z' },
    ]);
    expect(parsed.validLength).toBe(bytes(lines).length);
    expect(parsed.tornTail).toBeUndefined();
  });

  it('ignores a torn last line and says where the whole operations end', () => {
    const torn = lines + '{"op":"create","id":"b","it';
    const parsed = parseOperationLog(bytes(torn), 'x.log.jsonl');
    expect(parsed.operations).toHaveLength(2);
    expect(parsed.validLength).toBe(bytes(lines).length);
    expect(parsed.tornTail).toBe('{"op":"create","id":"b","it');
  });

  it('keeps a whole last operation that lacks only its newline', () => {
    const parsed = parseOperationLog(bytes(lines + '{"op":"delete","id":"z"}'), 'x');
    expect(parsed.operations).toHaveLength(3);
    expect(parsed.tornTail).toBeUndefined();
  });

  it('stops at a corrupt line before the end, naming the file and line', () => {
    const corrupt = lines + 'garbage\n' + formatOperation({ op: 'delete', id: 'q' }, at);
    expect(() => parseOperationLog(bytes(corrupt), 'x.log.jsonl')).toThrow(ConfigParseError);
    expect(() => parseOperationLog(bytes(corrupt), 'x.log.jsonl')).toThrow(/x\.log\.jsonl:3:1/);
    // An item deeper than a write may send, put in the log by other means, is as corrupt.
    const deep = lines + `{"op":"create","id":"d","item":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}\n` + formatOperation({ op: 'delete', id: 'q' }, at);
    expect(() => parseOperationLog(bytes(deep), 'x.log.jsonl')).toThrow(/x\.log\.jsonl:3:1: not an overlay operation: .*an item nesting at most 64 levels/);
  });
});

describe('dataset index', () => {
  it('keeps collection order: base items, replaced in place, created at the end, deleted gone', () => {
    const index = new DatasetIndex([{ id: 'a' }, { title: 'second' }, { id: 'c' }]);
    expect([...index.entries()].map(([id]) => id)).toEqual(['a', '2', 'c']);
    const before = index.generation;
    index.apply({ op: 'replace', id: 'a', item: { id: 'a', v: 2 } });
    index.apply({ op: 'create', id: 'd', item: { id: 'd' } });
    index.apply({ op: 'delete', id: '2' });
    expect(index.list()).toEqual([{ id: 'a', v: 2 }, { id: 'c' }, { id: 'd' }]);
    expect(index.generation).toBe(before + 3);
  });

  it('the list is built once per generation', () => {
    const index = new DatasetIndex([{ id: 'a' }]);
    expect(index.list()).toBe(index.list());
    const first = index.list();
    index.apply({ op: 'create', id: 'b', item: {} });
    expect(index.list()).not.toBe(first);
  });

  it('a free id never collides with an existing one', () => {
    const index = new DatasetIndex([{ id: 2 }, { id: '3' }]);
    expect(nextFreeId((id) => index.has(id), index.size + 1)).toBe(4);
  });
});

describe('content writes', () => {
  it('take text: a declared binary type, a NUL byte or invalid UTF-8 are refused', () => {
    expect(() => checkTextBody(bytes('<p>hi</p>'), 'text/html; charset=utf-8')).not.toThrow();
    expect(() => checkTextBody(bytes('{"a":1}'), 'application/json')).not.toThrow();
    expect(() => checkTextBody(bytes('plain'), undefined)).not.toThrow();
    expect(() => checkTextBody(bytes('curl -d'), 'application/x-www-form-urlencoded')).not.toThrow();
    expect(() => checkTextBody(bytes('png?'), 'image/png')).toThrow(/not a text type/);
    expect(() => checkTextBody(new Uint8Array([0x61, 0x00, 0x62]), 'text/plain')).toThrow(/NUL/);
    expect(() => checkTextBody(new Uint8Array([0xff, 0xfe, 0x41]), 'text/plain')).toThrow(/UTF-8/);
  });

  it('never write the names the overlay keeps for itself', () => {
    expect(() => checkWritableContentPath('.pkg-tombstones')).toThrow(/reserved/);
    expect(() => checkWritableContentPath('docs/a.html.pkg-partial')).toThrow(/reserved/);
    expect(() => checkWritableContentPath('drafts.pkg-partial/post.html')).toThrow(/"drafts.pkg-partial" is reserved/);
    expect(() => checkWritableContentPath('a/.pkg-tombstones/b.txt')).toThrow(/reserved/);
    expect(() => checkWritableContentPath('docs/a.html')).not.toThrow();
  });
});
