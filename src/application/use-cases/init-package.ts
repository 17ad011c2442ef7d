import { once } from '../shared/bytes.js';
import { UsageError } from '../../domain/errors.js';
import { BUNDLE_INDEX_FILE, type BundleIndex } from '../../domain/dependencies/bundle-index.js';
import { KEBAB_CASE, SEMVER, isUri } from '../../domain/package/field-rules.js';
import { MAX_NAME_OR_VERSION } from '../../domain/package/metadata.js';
import { METADATA_FILE } from '../../domain/package/package-paths.js';
import { fillTemplate, titleFrom, type TemplateValues } from '../../domain/package/template-values.js';
import { toJsonBytes } from '../package/package-reader.js';
import type { DirectoryWriter } from '../ports/directory-writer.js';
import type { FileWriter } from '../ports/file-writer.js';
import type { PackageTemplates, TemplateFile } from '../ports/package-templates.js';
import type { PackPackage } from './pack-package.js';

export const DEFAULT_TEMPLATE = 'site';
/** A template whose package depends on another: that one is scaffolded from `<name>-theme` and bundled. */
const DEPENDENCY_SUFFIX = '-theme';

export interface InitRequest {
  directory: string;
  template: string;
  name: string;
  description?: string;
  version?: string;
  author?: string;
  license?: string;
  guid?: string;
  /** Write into a directory that holds files already: template files replace theirs, others stay. */
  force: boolean;
}

export interface InitOutcome {
  directory: string;
  template: string;
  name: string;
  guid: string;
  files: string[];
  /** The dependency bundled under packages/, for a template that has one. */
  bundled?: string;
}

/**
 * `pkg init`: a package that passes validate and test as created, from one of the
 * templates the toolkit ships. A template with a dependency gets it scaffolded, packed
 * and bundled under `packages/`, so the new package needs no store or registry.
 */
export class InitPackage {
  constructor(
    private readonly templates: PackageTemplates,
    private readonly directories: DirectoryWriter,
    private readonly files: FileWriter,
    private readonly pack: PackPackage,
    private readonly newUuid: () => string,
    private readonly scratch: () => string,
  ) {}

  templateNames(): Promise<string[]> {
    return this.templates.names().then((names) => names.filter((name) => !name.endsWith(DEPENDENCY_SUFFIX)));
  }

  async execute(request: InitRequest): Promise<InitOutcome> {
    const names = await this.templateNames();
    if (!names.includes(request.template)) throw new UsageError(`no template ${JSON.stringify(request.template)}; templates: ${names.join(', ')}`);
    const values = this.valuesFor(request);
    const files = (await this.templates.files(request.template))!.map((file) => filled(file, values));
    await this.write(request.directory, files, request.force);
    const outcome: InitOutcome = { directory: request.directory, template: request.template, name: values.name!, guid: values.guid!, files: files.map((file) => file.path) };
    const dependency = await this.templates.files(`${request.template}${DEPENDENCY_SUFFIX}`);
    if (dependency) {
      try {
        outcome.bundled = await this.bundle(request.directory, dependency.map((file) => filled(file, values)), values.themeGuid!);
      } catch (error) {
        if (!request.force) await this.files.remove(request.directory);
        throw error;
      }
      outcome.files.push(`packages/${outcome.bundled}`, BUNDLE_INDEX_FILE);
    }
    return outcome;
  }

  private valuesFor(request: InitRequest): TemplateValues {
    const version = request.version ?? '0.1.0';
    const guid = request.guid ?? `pkg://local/${request.name}`;
    if (!KEBAB_CASE.test(request.name)) throw new UsageError(`--name ${JSON.stringify(request.name)} must be kebab-case: lower-case letters, digits and single hyphens`);
    if (!SEMVER.test(version)) throw new UsageError(`--package-version ${JSON.stringify(version)} is not a semantic version (like 0.1.0)`);
    for (const [option, value] of [['--name', request.name], ['--package-version', version]] as const)
      if (value.length > MAX_NAME_OR_VERSION) throw new UsageError(`${option} takes at most ${MAX_NAME_OR_VERSION} characters, since it names files (got ${value.length})`);
    if (!isUri(guid)) throw new UsageError(`--guid ${JSON.stringify(guid)} is not a URI (like pkg://example.org/${request.name})`);
    // What validate asks of metadata.json: the package made must pass it.
    if (request.description !== undefined && request.description.trim() === '') throw new UsageError('--description must not be empty');
    const title = titleFrom(request.name);
    return {
      name: request.name,
      title,
      version,
      description: request.description ?? `${title}: a content package`,
      guid,
      uuid: this.newUuid(),
      author: request.author ?? '',
      license: request.license ?? 'UNLICENSED',
      themeGuid: `${guid}${DEPENDENCY_SUFFIX}`,
      themeUuid: this.newUuid(),
    };
  }

  private async write(directory: string, files: readonly TemplateFile[], force: boolean): Promise<void> {
    if (force) {
      for (const file of files) await this.files.write(`${directory}/${file.path}`, once(file.bytes), { overwrite: true });
      return;
    }
    const draft = await this.directories.create(directory, { replace: false });
    try {
      for (const file of files) await draft.write(file.path, once(file.bytes));
      await draft.commit();
    } catch (error) {
      await draft.discard();
      throw error;
    }
  }

  /** Scaffolds the dependency in a scratch directory, packs it into `packages/` and indexes it there. */
  private async bundle(directory: string, files: readonly TemplateFile[], guid: string): Promise<string> {
    const scratch = this.scratch();
    try {
      await this.write(scratch, files, false);
      const packed = await this.pack.execute({ source: scratch, outputDirectory: `${directory}/packages`, force: true });
      const file = packed.path.slice(packed.path.lastIndexOf('/') + 1);
      const index: BundleIndex = { [guid]: { file: `packages/${file}`, version: packed.version, sha256: packed.sha256 } };
      await this.files.write(`${directory}/${BUNDLE_INDEX_FILE}`, once(toJsonBytes(index)), { overwrite: true });
      return file;
    } finally {
      await this.files.remove(scratch);
    }
  }
}

/** Placeholders filled; metadata.json without the optional fields left empty. */
function filled(file: TemplateFile, values: TemplateValues): TemplateFile {
  const text = fillTemplate(file.path, new TextDecoder().decode(file.bytes), values);
  if (file.path !== METADATA_FILE) return { path: file.path, bytes: new TextEncoder().encode(text) };
  const metadata = JSON.parse(text) as Record<string, unknown>;
  for (const field of ['author', 'license']) if (metadata[field] === '') delete metadata[field];
  return { path: file.path, bytes: toJsonBytes(metadata) };
}
