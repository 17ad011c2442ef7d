import type * as Readline from 'node:readline';
import { basename, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULT_TEMPLATE, type InitPackage } from '../../application/use-cases/init-package.js';
import { packageNameFrom } from '../../domain/package/template-values.js';
import { UsageError } from '../../domain/errors.js';
import { JSON_OPTION, printJson, type CliOutput } from './cli-output.js';
import type { Lazy } from './lazy.js';
import { nodeModule } from '../shared/node-module.js';

/**
 * `pkg init [dir]`: asks for what flags leave open only when a person is at a terminal.
 * Asked when init runs: reading process.stdin opens it, which no other command should pay for.
 */
export function initCommand(init: Lazy<InitPackage>, output: CliOutput, interactive = () => process.stdin.isTTY === true && process.stdout.isTTY === true) {
  return {
    command: 'init [dir]',
    describe: 'Create a package that passes validate and test as created, from a template (site, blog, docs, dataset-app, composite)',
    builder: (y: Argv) =>
      y
        .positional('dir', { type: 'string', default: '.', describe: 'directory to create the package in (empty or absent unless --force)' })
        .option('template', { alias: 't', type: 'string', describe: `template name (default: ${DEFAULT_TEMPLATE})` })
        .option('name', { type: 'string', describe: 'package name, kebab-case (default: from the directory name)' })
        .option('description', { type: 'string', describe: 'one-line description' })
        .option('package-version', { type: 'string', describe: 'first version of the package (default: 0.1.0)' })
        .option('author', { type: 'string', describe: 'author' })
        .option('license', { type: 'string', describe: 'license (default: UNLICENSED)' })
        .option('guid', { type: 'string', describe: 'package GUID, a URI (default: pkg://local/<name>; use a domain of yours before publishing)' })
        .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'write into a directory that holds files: template files replace theirs, others stay' })
        .options(JSON_OPTION),
    handler: async (argv: { dir: string; _: Array<string | number>; template?: string; name?: string; description?: string; 'package-version'?: string; author?: string; license?: string; guid?: string; force: boolean; json: boolean }) => {
      // yargs leaves what follows `--` out of the positionals: a directory given there (one named -x, say) is the directory, never the current one.
      const after = argv._.slice(1).map(String);
      if (after.length > 1 || (after.length === 1 && argv.dir !== '.')) throw new UsageError(`pkg init takes one directory (got ${[argv.dir, ...after].map((arg) => JSON.stringify(arg)).join(', ')})`);
      if (after.length === 1) argv.dir = after[0]!;
      const directory = resolve(argv.dir);
      const asked = interactive() ? await ask(argv, directory, await init().templateNames()) : argv;
      const outcome = await init().execute({
        directory,
        template: asked.template ?? DEFAULT_TEMPLATE,
        name: asked.name ?? nameFromDirectory(directory),
        force: argv.force,
        ...(asked.description !== undefined ? { description: asked.description } : {}),
        ...(argv['package-version'] !== undefined ? { version: argv['package-version'] } : {}),
        ...(asked.author !== undefined ? { author: asked.author } : {}),
        ...(argv.license !== undefined ? { license: argv.license } : {}),
        ...(argv.guid !== undefined ? { guid: argv.guid } : {}),
      });
      if (argv.json) return printJson(output, outcome);
      output.out(`Created ${outcome.name} (${outcome.guid}) from the ${outcome.template} template in ${outcome.directory}: ${outcome.files.length} files`);
      if (outcome.bundled) output.out(`Bundled its dependency: packages/${outcome.bundled}`);
      const dir = shellWord(argv.dir);
      output.out(`Next: npx pkg reactor serve ${dir} --watch --live-reload, npx pkg package test ${dir}, npx pkg package pack ${dir}`);
    },
  };
}

type Answers = { template?: string; name?: string; description?: string; author?: string };

/** The default name; a directory named in no letters a name can hold (`日本`) gives none, and saying so beats blaming a --name not given. */
function nameFromDirectory(directory: string): string {
  const name = packageNameFrom(basename(directory));
  if (name === '') throw new UsageError(`the directory name ${JSON.stringify(basename(directory))} gives no package name (kebab-case: a-z, 0-9 and hyphens); give one with --name`);
  return name;
}

/** One question per value the flags left open; an empty answer (or the end of input) keeps the default shown. */
async function ask(argv: Answers, directory: string, templates: string[]): Promise<Answers> {
  const prompt = nodeModule<typeof Readline>('node:readline').createInterface({ input: process.stdin, output: process.stdout });
  // The iterator buffers lines typed (or pasted) ahead of their question; question() would drop them.
  const lines = prompt[Symbol.asyncIterator]();
  const answer = async (text: string) => {
    prompt.setPrompt(text);
    prompt.prompt();
    const line = await lines.next();
    return line.done ? undefined : String(line.value).trim() || undefined;
  };
  try {
    return {
      template: argv.template ?? (await answer(`Template [${templates.join(', ')}] (${DEFAULT_TEMPLATE}): `)) ?? DEFAULT_TEMPLATE,
      name: argv.name ?? (await answer(`Package name (${packageNameFrom(basename(directory))}): `)) ?? nameFromDirectory(directory),
      description: argv.description ?? (await answer('Description: ')),
      author: argv.author ?? (await answer('Author: ')),
    };
  } finally {
    prompt.close();
  }
}

/**
 * The directory as a shell reads it back: quoted when it holds anything but plain
 * characters, and one that starts with `-` as `./-x`, which no command reads as options
 * (`-dash` would be `-d -a -s -h`, the help).
 */
function shellWord(text: string): string {
  const path = text.startsWith('-') ? `./${text}` : text;
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
