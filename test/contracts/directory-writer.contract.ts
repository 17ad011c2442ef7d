import { describe, expect, it } from '@jest/globals';
import type { DirectoryWriter } from '../../src/application/ports/directory-writer.js';
import { OutputExistsError, UnsafeEntryError } from '../../src/domain/errors.js';
import { chunks, eachSubject, type Subject } from './subject.js';

export interface DirectoryWriterSubject {
  writer: DirectoryWriter;
  /** An absolute directory under which destinations are made. */
  root: string;
  /** The files under a directory, path to text; undefined when there is no directory. */
  filesAt(directory: string): Promise<Record<string, string> | undefined>;
}

/** The promises of the DirectoryWriter port (src/application/ports/directory-writer.ts). */
export function describeDirectoryWriterContract(name: string, makeSubject: () => Promise<Subject<DirectoryWriterSubject>> | Subject<DirectoryWriterSubject>): void {
  describe(`${name} keeps the DirectoryWriter contract`, () => {
    const subject = eachSubject(makeSubject);
    const destination = () => `${subject().root}/out/site`;
    async function fill(replace = false, files: Record<string, string> = { 'metadata.json': '{}', 'content/docs/a.html': '<p>a</p>' }) {
      const draft = await subject().writer.create(destination(), { replace });
      for (const [path, value] of Object.entries(files)) await draft.write(path, chunks(value));
      return draft;
    }

    it('shows nothing at the destination until commit, then every file; commit gives the destination', async () => {
      const draft = await fill();
      expect(await subject().filesAt(destination())).toBeUndefined();
      expect(await draft.commit()).toBe(destination());
      expect(await subject().filesAt(destination())).toEqual({ 'content/docs/a.html': '<p>a</p>', 'metadata.json': '{}' });
    });

    it('leaves nothing when discarded', async () => {
      await (await fill()).discard();
      expect(await subject().filesAt(destination())).toBeUndefined();
    });

    it('refuses a destination that holds files with OutputExistsError unless told to replace, then replaces it whole', async () => {
      await (await fill()).commit();
      await expect(subject().writer.create(destination(), { replace: false })).rejects.toThrow(OutputExistsError);
      await (await fill(true, { 'only.txt': 'only' })).commit();
      expect(await subject().filesAt(destination())).toEqual({ 'only.txt': 'only' });
    });

    it('never overwrites a file it wrote: on a file system that folds case, `Case.html` then `CASE.html` would leave one file with the second bytes', async () => {
      const draft = await subject().writer.create(destination(), { replace: false });
      await draft.write('content/Case.html', chunks('first'));
      await expect(draft.write('content/Case.html', chunks('second'))).rejects.toThrow(UnsafeEntryError);
      await draft.commit();
      expect(await subject().filesAt(destination())).toEqual({ 'content/Case.html': 'first' });
    });

    it('refuses a path that escapes the destination', async () => {
      const draft = await subject().writer.create(destination(), { replace: false });
      for (const path of ['../escape.txt', '../../x', 'a/../../b', '/etc/passwd']) await expect(draft.write(path, chunks('x'))).rejects.toThrow();
      await draft.write('kept.txt', chunks('kept'));
      await draft.commit();
      expect(await subject().filesAt(destination())).toEqual({ 'kept.txt': 'kept' });
      expect(await subject().filesAt(`${subject().root}/out`)).toEqual({ 'site/kept.txt': 'kept' });
    });
  });
}
