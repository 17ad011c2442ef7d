import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { PackageTemplates, TemplateFile } from '../../application/ports/package-templates.js';

/** Templates as directories under one root (`templates/` beside `dist/` in the installed package). */
export class FsPackageTemplates implements PackageTemplates {
  constructor(private readonly root: string) {}

  async names(): Promise<string[]> {
    const entries = await readdir(this.root, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  }

  async files(name: string): Promise<TemplateFile[] | undefined> {
    if (!(await this.names()).includes(name)) return undefined;
    const directory = join(this.root, name);
    const entries = await readdir(directory, { withFileTypes: true, recursive: true });
    const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    return Promise.all(files.sort().map(async (file) => ({ path: relative(directory, file).split(sep).join('/'), bytes: new Uint8Array(await readFile(file)) })));
  }
}
