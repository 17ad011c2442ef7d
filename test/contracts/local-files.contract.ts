import { describe, expect, it } from '@jest/globals';
import type { LocalFiles } from '../../src/application/ports/local-files.js';
import { bytes, eachSubject, text, type Subject } from './subject.js';

export interface LocalFilesSubject {
  files: LocalFiles;
  /** An absolute directory where the operator's files are put. */
  root: string;
  /** The operator writes a file (a whole new version of it). */
  write(path: string, content: Uint8Array): Promise<void>;
  /** The operator removes a file. */
  remove(path: string): Promise<void>;
}

/** The promises of the LocalFiles port (src/application/ports/local-files.ts). */
export function describeLocalFilesContract(name: string, makeSubject: () => Promise<Subject<LocalFilesSubject>> | Subject<LocalFilesSubject>): void {
  describe(`${name} keeps the LocalFiles contract`, () => {
    const subject = eachSubject(makeSubject);
    const at = (name: string) => `${subject().root}/${name}`;

    it('reads a file whole, and nothing where there is no file', async () => {
      await subject().write(at('deploy.json'), bytes('{"baseUrl":"https://site.test"}'));
      expect(text((await subject().files.read(at('deploy.json')))!)).toBe('{"baseUrl":"https://site.test"}');
      expect(await subject().files.read(at('missing.json'))).toBeUndefined();
    });

    it('gives a version that holds while the file is unchanged, changes with it, and is gone with it', async () => {
      expect(await subject().files.version(at('htpasswd'))).toBeUndefined();
      await subject().write(at('htpasswd'), bytes('ann:x\n'));
      const first = await subject().files.version(at('htpasswd'));
      expect(first).toEqual(expect.any(String));
      expect(await subject().files.version(at('htpasswd'))).toBe(first);
      await subject().write(at('htpasswd'), bytes('ann:x\nbob:y\n'));
      const second = await subject().files.version(at('htpasswd'));
      expect(second).toEqual(expect.any(String));
      expect(second).not.toBe(first);
      await subject().remove(at('htpasswd'));
      expect(await subject().files.version(at('htpasswd'))).toBeUndefined();
      expect(await subject().files.read(at('htpasswd'))).toBeUndefined();
    });

    it('resolves a path relative to the directory of another file; an absolute path stays as it is', () => {
      const { files, root } = subject();
      expect(files.resolve(`${root}/conf/deploy.json`, 'htpasswd')).toBe(`${root}/conf/htpasswd`);
      expect(files.resolve(`${root}/conf/deploy.json`, '../secrets/session.key')).toBe(`${root}/secrets/session.key`);
      expect(files.resolve(`${root}/conf/deploy.json`, '/etc/htpasswd')).toBe('/etc/htpasswd');
    });
  });
}
