import { datasetViolations } from '../data/dataset-violations.js';
import { normalizeSecurity } from '../../domain/integrity/security.js';
import { parseJson, parseYaml, type ParseOptions } from '../../domain/package/documents.js';
import { normalizeManifest } from '../../domain/package/manifest.js';
import { normalizeMetadata } from '../../domain/package/metadata.js';
import { MANIFEST_FILE, METADATA_FILE, ROUTES_FILE, SECURITY_FILE, STORAGE_FILE } from '../../domain/package/package-paths.js';
import { normalizeRoutes } from '../../domain/package/routes.js';
import { normalizeStorage } from '../../domain/package/storage.js';
import { normalizeTestSuite, requestTarget, type InvalidTest, type PackageTest } from '../../domain/testing/test-suite.js';
import { MAX_DATA_DOCUMENT_BYTES, assertPackage, readDocument, readDocumentText, readText } from '../package/package-reader.js';
import type { HttpProbe } from '../ports/http-probe.js';
import { messageOf } from '../shared/error-message.js';
import type { PackageOpener, PackageSource } from '../ports/package-source.js';
import type { ReactorHost, RunningReactor } from '../ports/reactor-host.js';
import type { SchemaValidator } from '../ports/schema-validator.js';
import { refuseEncrypted } from '../signing/envelope-opener.js';
import type { DependencyContext } from '../package/dependency-loader.js';

export interface TestResult {
  file: string;
  name: string;
  type: string;
  passed: boolean;
  messages: string[];
}

export interface TestReport {
  source: string;
  results: TestResult[];
  passed: number;
  failed: number;
}

const KNOWN_CONFIGS: Record<string, (raw: unknown) => unknown> = {
  [METADATA_FILE]: normalizeMetadata,
  [MANIFEST_FILE]: normalizeManifest,
  [ROUTES_FILE]: normalizeRoutes,
  [STORAGE_FILE]: normalizeStorage,
  [SECURITY_FILE]: normalizeSecurity,
};

const TEST_FILE = /^tests\/[^/]+\.ya?ml$/;

/**
 * Runs a package's `tests/*.yaml`. Route tests go to the same reactor code that serves
 * packages, started in process on an ephemeral loopback port, and only when some test
 * needs it. An invalid definition is a failed test with the reason.
 */
export class TestPackage {
  constructor(
    private readonly opener: PackageOpener,
    private readonly host: ReactorHost,
    private readonly probe: HttpProbe,
    private readonly schemas: SchemaValidator,
  ) {}

  /** `dependencies`: where route tests find the packages a composite package depends on. */
  async execute(location: string, dependencies: DependencyContext = {}): Promise<TestReport> {
    const source = await this.opener.open(location);
    const suites: Array<{ file: string; tests: Array<PackageTest | InvalidTest> }> = [];
    try {
      refuseEncrypted(source, 'test');
      assertPackage(source);
      for (const { path } of source.entries().filter((entry) => TEST_FILE.test(entry.path))) {
        try {
          suites.push({ file: path, tests: normalizeTestSuite(await readDocument(source, path), path) });
        } catch (error) {
          suites.push({ file: path, tests: [{ type: 'invalid', name: path, problems: [messageOf(error)] }] });
        }
      }
      let reactor: RunningReactor | Error | undefined;
      const results: TestResult[] = [];
      try {
        for (const { file, tests } of suites) {
          for (const test of tests) {
            // A package that cannot be served (a dependency not found, say) fails each route test with the reason.
            if (test.type === 'route' && !reactor)
              reactor = await this.host.start([{ source: location }], { port: 0, host: '127.0.0.1', cacheControl: 'no-cache', ...dependencies }, { quiet: true }).catch((error: unknown) => asError(error));
            const messages = await this.run(test, source, reactor);
            results.push({ file, name: test.name, type: test.type, passed: messages.length === 0, messages });
          }
        }
      } finally {
        if (reactor && !(reactor instanceof Error)) await reactor.stop();
      }
      const passed = results.filter((r) => r.passed).length;
      return { source: location, results, passed, failed: results.length - passed };
    } finally {
      await source.close();
    }
  }

  private async run(test: PackageTest | InvalidTest, source: PackageSource, reactor: RunningReactor | Error | undefined): Promise<string[]> {
    try {
      switch (test.type) {
        case 'invalid':
          return test.problems.map((problem) => `invalid definition: ${problem}`);
        case 'route':
          if (reactor instanceof Error) return [`the package could not be served: ${reactor.name}: ${reactor.message}`];
          return await this.route(test, reactor!);
        case 'file':
          return await this.file(test, source);
        case 'data_validation':
          return await this.data(test, source);
        case 'config':
          return await this.config(test, source);
      }
    } catch (error) {
      return [messageOf(error)];
    }
  }

  private async route(test: Extract<PackageTest, { type: 'route' }>, reactor: RunningReactor): Promise<string[]> {
    const target = requestTarget(test.url);
    if (target === undefined) return [`invalid definition: url ${JSON.stringify(test.url)} is neither a path nor an absolute URL`];
    const response = await this.probe.get(reactor.url + target);
    const messages: string[] = [];
    if (response.status !== test.expectedStatus) messages.push(`GET ${target}: expected status ${test.expectedStatus}, got ${response.status}`);
    if (test.responseContains !== undefined && !response.body.includes(test.responseContains)) messages.push(`GET ${target}: response does not contain ${JSON.stringify(test.responseContains)}`);
    if (test.expectedContentType !== undefined && !(response.contentType ?? '').toLowerCase().startsWith(test.expectedContentType.toLowerCase()))
      messages.push(`GET ${target}: expected content type ${test.expectedContentType}, got ${response.contentType ?? 'none'}`);
    return messages;
  }

  private async file(test: Extract<PackageTest, { type: 'file' }>, source: PackageSource): Promise<string[]> {
    if (!source.has(test.path)) return [`${test.path} does not exist in the package`];
    if (test.contains !== undefined && !(await readText(source, test.path, MAX_DATA_DOCUMENT_BYTES)).includes(test.contains)) return [`${test.path} does not contain ${JSON.stringify(test.contains)}`];
    return [];
  }

  private async data(test: Extract<PackageTest, { type: 'data_validation' }>, source: PackageSource): Promise<string[]> {
    for (const path of [test.dataFile, test.schemaFile]) if (!source.has(path)) return [`${path} does not exist in the package`];
    const schema = await readDocument(source, test.schemaFile);
    const data = parseAs(await readDocumentText(source, test.dataFile, MAX_DATA_DOCUMENT_BYTES), test.dataFile, test.format, { lastKeyWins: true });
    return (await datasetViolations(this.schemas, schema, test.schemaFile, data, test.dataFile)).violations;
  }

  private async config(test: Extract<PackageTest, { type: 'config' }>, source: PackageSource): Promise<string[]> {
    if (!source.has(test.configFile)) return [`${test.configFile} does not exist in the package`];
    const raw = parseAs(await readDocumentText(source, test.configFile), test.configFile, test.format);
    KNOWN_CONFIGS[test.configFile]?.(raw);
    return [];
  }
}

/** Parses by the declared format, whatever the file's extension says. */
function parseAs(text: string, file: string, format: 'json' | 'yaml', options: ParseOptions = {}): unknown {
  return format === 'yaml' ? parseYaml(text, file) : parseJson(text, file, options);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
