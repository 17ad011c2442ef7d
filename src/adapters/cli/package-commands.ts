import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { UsageError } from '../../domain/errors.js';
import type { Argv } from 'yargs';
import type { InspectItem, InspectPackage, PackageInfo } from '../../application/use-cases/inspect-package.js';
import type { PackPackage } from '../../application/use-cases/pack-package.js';
import type { UnpackPackage } from '../../application/use-cases/unpack-package.js';
import type { ValidatePackage } from '../../application/use-cases/validate-package.js';
import type { TestPackage } from '../../application/use-cases/test-package.js';
import { JSON_OPTION, printJson, type CliOutput } from './cli-output.js';
import { printInfo, printTestReport, printValidation } from './report-printer.js';
import { printDiff } from './diff-printer.js';
import type { DiffPackages } from '../../application/use-cases/diff-packages.js';
import { signingCommands, type SigningUseCases } from './signing-commands.js';
import type { PushPackage } from '../../application/use-cases/push-package.js';
import { packageSources, pushCommand, storeAndRegistry } from './registry-commands.js';
import type { LazyFields } from './lazy.js';

/** The package commands' use cases, each built when its command runs. */
export interface PackageUseCases
  extends SigningUseCases,
    LazyFields<{
      pack: PackPackage;
      unpack: UnpackPackage;
      validate: ValidatePackage;
      inspect: InspectPackage;
      test: TestPackage;
      push: PushPackage;
      diff: DiffPackages;
    }> {}

/** Sets the process exit status without throwing, so yargs finishes cleanly. */
export type ExitStatus = (code: number) => void;

export function packageCommands(yargs: Argv, useCases: PackageUseCases, output: CliOutput, exit: ExitStatus): Argv {
  return signingCommands(yargs, useCases, output, exit)
    .command(
      'pack <path>',
      'Pack a package directory into <name>-<version>.cap',
      (y) =>
        y
          .positional('path', { type: 'string', demandOption: true, describe: 'package directory' })
          .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite an existing .cap' })
          .option('output', { alias: 'o', type: 'string', describe: 'directory to write the .cap into (default: the current directory)' })
          .option('bundle-deps', { alias: 'bundle', type: 'boolean', default: false, describe: 'embed every declared dependency under packages/ (resolved through the store, then the registry)' })
          .option('store', { type: 'string', default: process.env.PKG_STORE, defaultDescription: '$PKG_STORE', describe: 'package store directory' })
          .option('registry', { type: 'string', default: process.env.PKG_REGISTRY, defaultDescription: '$PKG_REGISTRY', describe: 'registry directory or https URL' })
          .options(JSON_OPTION),
      async (argv) => {
        const bundle = argv['bundle-deps'] ? { bundle: packageSources(argv) } : {};
        const result = await useCases.pack().execute({ source: argv.path, outputDirectory: packOutputDirectory(argv.output), force: argv.force, ...bundle });
        if (argv.json) return printJson(output, result);
        output.out(`Packed ${result.name} ${result.version}: ${result.path} (${result.entries} entries, ${result.size} bytes)`);
        for (const dependency of result.bundled) output.out(`Bundled ${dependency.guid} ${dependency.version}: ${dependency.file}`);
        if (result.generated.length > 0) output.out(`Generated inside the archive: ${result.generated.join(', ')}`);
      },
    )
    .command(
      'diff <from> <to>',
      'Compare two packages (directories or .cap files, any mix): identity, files, routes, dataset items, signature, encryption; exit 1 when they differ',
      (y) =>
        y
          .positional('from', { type: 'string', demandOption: true, describe: 'package directory or .cap' })
          .positional('to', { type: 'string', demandOption: true, describe: 'package directory or .cap' })
          .options(JSON_OPTION),
      async (argv) => {
        const report = await useCases.diff().execute(argv.from, argv.to);
        if (argv.json) printJson(output, report);
        else printDiff(output, report);
        if (!report.equal) exit(1);
      },
    )
    .command(
      'unpack <cap>',
      'Extract a .cap archive',
      (y) =>
        y
          .positional('cap', { type: 'string', demandOption: true, describe: '.cap file' })
          .option('output', { alias: 'o', type: 'string', describe: 'destination directory (default: named after the .cap)' })
          .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'replace a non-empty destination' }),
      async (argv) => {
        const destination = unpackDestination(argv.cap, argv.output, argv.force);
        const result = await useCases.unpack().execute({ archive: argv.cap, destination, force: argv.force });
        output.out(`Unpacked ${result.files} files into ${result.destination}`);
      },
    )
    .command({
      ...reportCommand('validate', 'Check a package directory or .cap: metadata, manifest, routes, storage, security, content', output, exit, {
        run: (path, argv) => useCases.validate().execute(path, packageSources(argv as { store?: string; registry?: string })),
        print: printValidation,
        failed: (report) => !report.valid,
      }),
      // A composite package's resources in its dependencies are checked when they can be resolved.
      builder: (y: Argv) => storeAndRegistry(pathAndJson(y)),
    })
    .command({
      ...reportCommand('test', 'Run the package tests in tests/*.yaml: route, file, data_validation and config tests', output, exit, {
        run: (path, argv) => useCases.test().execute(path, packageSources(argv as { store?: string; registry?: string })),
        print: printTestReport,
        failed: (report) => report.failed > 0,
      }),
      // Route tests serve the package as the reactor does: with its dependencies' layers.
      builder: (y: Argv) => storeAndRegistry(pathAndJson(y)),
    })
    .command(inspectCommand('info', 'Print what the package is, its files and its declared dependencies', useCases, output))
    .command(inspectCommand('manifest', 'Print manifest.json in canonical form (generated when absent)', useCases, output))
    .command(inspectCommand('routes', 'Print routes.json in canonical form (generated when absent)', useCases, output))
    .command(inspectCommand('metadata', 'Print metadata.json in canonical form', useCases, output))
    .command(inspectCommand('storage', 'Print storage.json in canonical form (null when absent)', useCases, output))
    .command(pushCommand(useCases.push, output))
    .demandCommand(1, 'name a package command')
    .strictCommands()
    .strict();
}

/** A package path and `--json`: what every reporting command takes. */
function pathAndJson(y: Argv) {
  return y.positional('path', { type: 'string', demandOption: true, describe: 'package directory or .cap' }).options(JSON_OPTION);
}

/** A command that prints a report (human or `--json`) and exits 1 when it failed. */
function reportCommand<R>(
  name: string,
  description: string,
  output: CliOutput,
  exit: ExitStatus,
  report: { run: (path: string, argv: Record<string, unknown>) => Promise<R>; print: (output: CliOutput, report: R) => void; failed: (report: R) => boolean },
) {
  return {
    command: `${name} <path>`,
    describe: description,
    builder: pathAndJson,
    handler: async (argv: { path: string; json: boolean }) => {
      const result = await report.run(argv.path, argv);
      if (argv.json) printJson(output, result);
      else report.print(output, result);
      if (report.failed(result)) exit(1);
    },
  };
}

function inspectCommand(item: InspectItem, description: string, useCases: PackageUseCases, output: CliOutput) {
  return {
    command: `${item} <path>`,
    describe: description,
    builder: (y: Argv) => storeAndRegistry(pathAndJson(y)),
    handler: async (argv: { path: string; json: boolean; store?: string; registry?: string }) => {
      const value = await useCases.inspect().execute(argv.path, item, packageSources(argv), (warning) => output.err(`warning: ${warning}`));
      if (item === 'info' && !argv.json) printInfo(output, value as PackageInfo);
      else printJson(output, value);
    },
  };
}

/**
 * Where `unpack` writes. An empty `-o` (an unset shell variable) or a `.cap` named `.cap`
 * resolves to the current directory, which `--force` would then replace: refused, as is
 * any destination holding the current directory, or the archive itself (`-o .` beside
 * it would unpack it and delete it).
 */
function unpackDestination(cap: string, output: string | undefined, force: boolean): string {
  const named = output ?? basename(cap).replace(/\.cap$/i, '');
  if (named.trim() === '') throw new UsageError(output === undefined ? `cannot name a directory after ${cap}: give one with -o` : '-o/--output is empty: give the destination directory');
  const destination = resolve(named);
  if (!force) return destination;
  // Compared as the file system sees them: the shell's $PWD may reach the same folder through a link.
  const target = physical(destination);
  const holds = (path: string) => path === target || path.startsWith(target.endsWith(sep) ? target : target + sep);
  if (holds(realpathSync(process.cwd()))) throw new UsageError(`refusing to replace ${destination}: it holds the current directory`);
  // An archive that is not there is the opener's to report (SourceNotFoundError).
  const archive = existsSync(cap) ? realpathSync(cap) : undefined;
  if (archive !== undefined && holds(archive)) throw new UsageError(`refusing to replace ${destination}: it holds ${cap}, the archive being unpacked`);
  return destination;
}

/** The path with its links resolved, as far as it exists; the rest as written. */
function physical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(physical(parent), basename(path));
  }
}

/**
 * `--output` names the folder the archive goes into. `-o site.cap`, read as a file name,
 * would make a folder `site.cap` holding `<name>-<version>.cap`: refused, unless that folder
 * is there already.
 */
function packOutputDirectory(output: string | undefined): string {
  const directory = resolve(output ?? '.');
  if (/\.cap$/i.test(directory) && !existsSync(directory)) {
    throw new UsageError(`--output is the folder the archive goes into (as <name>-<version>.cap); ${output} is not one: give the folder to write into`);
  }
  return directory;
}
