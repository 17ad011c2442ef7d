import type { Argv } from 'yargs';
import type { InstallPackage } from '../../application/use-cases/install-package.js';
import type { PushPackage } from '../../application/use-cases/push-package.js';
import { resolve } from 'node:path';
import { RegistryNotConfiguredError, UsageError } from '../../domain/errors.js';
import { isValidRange } from '../../domain/package/version-range.js';
import type { UninstallPackage } from '../../application/use-cases/uninstall-package.js';
import type { IndexRegistry } from '../../application/use-cases/index-registry.js';
import type { SearchRegistry } from '../../application/use-cases/search-registry.js';
import { JSON_OPTION, printJson, type CliOutput } from './cli-output.js';
import type { Lazy } from './lazy.js';
import { oneLine } from './terminal-text.js';

/** `--store` and `--registry`, with their environment variables: every command that resolves packages takes them. */
export function storeAndRegistry<T>(y: Argv<T>) {
  return y
    .option('store', { type: 'string', default: process.env.PKG_STORE, defaultDescription: '$PKG_STORE', describe: 'package store directory' })
    .option('registry', { type: 'string', default: process.env.PKG_REGISTRY, defaultDescription: '$PKG_REGISTRY', describe: 'registry directory or https URL' });
}

/** The dependency context of a command's options: absent options stay absent. */
export function packageSources(argv: { store?: string; registry?: string }): { store?: string; registry?: string } {
  return { ...(argv.store ? { store: argv.store } : {}), ...(argv.registry ? { registry: argv.registry } : {}) };
}

export function pushCommand(push: Lazy<PushPackage>, output: CliOutput) {
  return {
    command: 'push <cap>',
    describe: 'Validate a .cap and publish it into a registry directory (index.json rewritten with its sha256 and size)',
    builder: (y: Argv) =>
      y
        .positional('cap', { type: 'string', demandOption: true, describe: '.cap file' })
        .option('registry', { type: 'string', default: process.env.PKG_REGISTRY, defaultDescription: '$PKG_REGISTRY', describe: 'registry directory' })
        .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'replace a published version whose bytes differ' })
        .options(JSON_OPTION),
    handler: async (argv: { cap: string; registry?: string; force: boolean; json: boolean }) => {
      const pushed = await push().execute({ cap: argv.cap, force: argv.force, ...packageSources(argv) });
      if (argv.json) return printJson(output, pushed);
      const what = `${pushed.name} ${pushed.version} (${pushed.guid})`;
      output.out(
        pushed.published
          ? `Pushed ${what} to ${pushed.registry}: ${pushed.file} (${pushed.size} bytes, sha256 ${pushed.sha256})`
          : `${what} is already in ${pushed.registry} with these bytes: ${pushed.file}`,
      );
    },
  };
}

export function installCommand(install: Lazy<InstallPackage>, output: CliOutput) {
  return {
    command: 'install <guid>',
    describe: 'Install the newest version of a package that satisfies a constraint from a registry into a store',
    builder: (y: Argv) =>
      storeAndRegistry(y)
        .positional('guid', { type: 'string', demandOption: true, describe: 'package GUID' })
        .option('constraint', { type: 'string', default: '*', describe: 'semver range, e.g. "^1.2.0" or ">=1.0.0, <2.0.0"' })
        .options(JSON_OPTION),
    handler: async (argv: { guid: string; constraint: string; store?: string; registry?: string; json: boolean }) => {
      const installed = await install().execute({ guid: argv.guid, constraint: checkedConstraint(argv.constraint), ...packageSources(argv) });
      if (argv.json) return printJson(output, installed);
      output.out(
        installed.downloaded
          ? `Installed ${installed.name} ${installed.version} (${installed.guid}) from ${installed.registry}: ${installed.path}`
          : `${installed.name} ${installed.version} (${installed.guid}) is already installed: ${installed.path}`,
      );
    },
  };
}

export function registryCommands(indexRegistry: Lazy<IndexRegistry>, output: CliOutput) {
  return {
    command: 'registry',
    describe: 'Work with a registry directory: index',
    builder: (y: Argv) =>
      y
        .command(
          'index <dir>',
          'Rebuild index.json from the .cap files in a directory, as helm repo index does (GUID, name and version from each file, with SHA-256 and size)',
          (inner) =>
            inner
              .positional('dir', { type: 'string', demandOption: true, describe: 'registry directory' })
              .option('merge', { type: 'boolean', default: false, describe: 'keep the entries of the index already there; the files found replace theirs' })
              .options(JSON_OPTION),
          async (argv) => {
            const outcome = await indexRegistry().execute({ directory: resolve(argv.dir), merge: argv.merge });
            if (argv.json) return printJson(output, outcome);
            output.out(`Indexed ${outcome.versions} version${outcome.versions === 1 ? '' : 's'} of ${outcome.packages} package${outcome.packages === 1 ? '' : 's'}: ${outcome.path}`);
            for (const skipped of outcome.skipped) output.err(`warning: skipped ${skipped}`);
          },
        )
        .demandCommand(1, 'name a registry command')
        .strictCommands(),
    handler: () => undefined,
  };
}

export function searchCommand(search: Lazy<SearchRegistry>, output: CliOutput) {
  return {
    command: 'search <term>',
    describe: 'List the packages of a registry whose GUID or name holds the term, with their versions',
    builder: (y: Argv) =>
      y
        .positional('term', { type: 'string', demandOption: true, describe: 'text to look for (any case)' })
        .option('registry', { type: 'string', default: process.env.PKG_REGISTRY, defaultDescription: '$PKG_REGISTRY', describe: 'registry directory or https URL' })
        .options(JSON_OPTION),
    handler: async (argv: { term: string; registry?: string; json: boolean }) => {
      if (!argv.registry) throw new RegistryNotConfiguredError('no registry to search: use --registry or set PKG_REGISTRY');
      const hits = await search().execute({ term: argv.term, registry: argv.registry });
      if (argv.json) return printJson(output, hits);
      if (hits.length === 0) return output.out(`No package matches ${JSON.stringify(argv.term)}`);
      const width = Math.max(...hits.map((hit) => hit.name.length));
      for (const hit of hits) output.out(`${hit.name.padEnd(width)}  ${hit.versions.join(', ')}  ${oneLine(hit.guid)}`);
    },
  };
}

export function uninstallCommand(uninstall: Lazy<UninstallPackage>, output: CliOutput) {
  return {
    command: 'uninstall <guid>',
    describe: 'Remove a package from a store (every version, or one with --version) and update its index.json',
    builder: (y: Argv) =>
      y
        .positional('guid', { type: 'string', demandOption: true, describe: 'package GUID' })
        // `--version` here is the package's, not the tool's.
        .version(false)
        .option('version', { type: 'string', describe: 'only this version' })
        .option('store', { type: 'string', default: process.env.PKG_STORE, defaultDescription: '$PKG_STORE', describe: 'package store directory' })
        .options(JSON_OPTION),
    handler: async (argv: { guid: string; version?: string; store?: string; json: boolean }) => {
      if (!argv.store) throw new UsageError('no store to uninstall from: use --store or set PKG_STORE');
      // `--version` given without its value reads as "": not a version any store holds, but a missing argument.
      if (argv.version !== undefined && argv.version.trim() === '') throw new UsageError('--version needs the version to uninstall, like --version 1.2.0; without it every version goes');
      const outcome = await uninstall().execute({ guid: argv.guid, store: resolve(argv.store), ...(argv.version !== undefined ? { version: argv.version } : {}) });
      if (argv.json) return printJson(output, outcome);
      output.out(`Uninstalled ${outcome.guid} ${[...new Set(outcome.removed.map((stored) => stored.version))].join(', ')}${outcome.remaining.length > 0 ? `; the store still holds ${outcome.remaining.join(', ')}` : ''}`);
    },
  };
}

/** A --constraint that is no semver range is the user's typo, not a range nothing satisfies. */
export function checkedConstraint(constraint: string): string {
  if (!isValidRange(constraint)) throw new UsageError(`--constraint takes a semver range, like "^1.2.0" or ">=1.0.0, <2.0.0" (got ${JSON.stringify(constraint)})`);
  return constraint;
}
