import type { Argv } from 'yargs';
import type { InstallPackage } from '../../application/use-cases/install-package.js';
import type { PushPackage } from '../../application/use-cases/push-package.js';
import { JSON_OPTION, printJson, type CliOutput } from './cli-output.js';

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

export function pushCommand(push: PushPackage, output: CliOutput) {
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
      const pushed = await push.execute({ cap: argv.cap, force: argv.force, ...packageSources(argv) });
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

export function installCommand(install: InstallPackage, output: CliOutput) {
  return {
    command: 'install <guid>',
    describe: 'Install the newest version of a package that satisfies a constraint from a registry into a store',
    builder: (y: Argv) =>
      storeAndRegistry(y)
        .positional('guid', { type: 'string', demandOption: true, describe: 'package GUID' })
        .option('constraint', { type: 'string', default: '*', describe: 'semver range, e.g. "^1.2.0" or ">=1.0.0, <2.0.0"' })
        .options(JSON_OPTION),
    handler: async (argv: { guid: string; constraint: string; store?: string; registry?: string; json: boolean }) => {
      const installed = await install.execute({ guid: argv.guid, constraint: argv.constraint, ...packageSources(argv) });
      if (argv.json) return printJson(output, installed);
      output.out(
        installed.downloaded
          ? `Installed ${installed.name} ${installed.version} (${installed.guid}) from ${installed.registry}: ${installed.path}`
          : `${installed.name} ${installed.version} (${installed.guid}) is already installed: ${installed.path}`,
      );
    },
  };
}
