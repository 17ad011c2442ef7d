import yargs, { type Argv } from 'yargs';
import { UsageError } from '../../domain/errors.js';
import type { CliOutput } from './cli-output.js';
import { reportError } from './error-reporter.js';
import { packageCommands, type PackageUseCases } from './package-commands.js';
import { reactorCommands } from './reactor-commands.js';
import type { ReactorHost } from '../../application/ports/reactor-host.js';
import type { CopyOverlays } from '../../application/use-cases/copy-overlays.js';
import type { InstallPackage } from '../../application/use-cases/install-package.js';
import { installCommand, registryCommands, searchCommand, uninstallCommand } from './registry-commands.js';
import type { UninstallPackage } from '../../application/use-cases/uninstall-package.js';
import type { IndexRegistry } from '../../application/use-cases/index-registry.js';
import type { SearchRegistry } from '../../application/use-cases/search-registry.js';
import { initCommand } from './init-command.js';
import { ARCHIVE_LIMIT_OPTIONS, applyArchiveLimits } from './archive-limit-options.js';
import type { InitPackage } from '../../application/use-cases/init-package.js';
import type { Lazy } from './lazy.js';

/** What the commands run, each built only when its command runs (see Lazy). */
export interface CliDependencies {
  version: string;
  output: CliOutput;
  package: PackageUseCases;
  reactor: Lazy<ReactorHost>;
  copyOverlays: Lazy<CopyOverlays>;
  install: Lazy<InstallPackage>;
  init: Lazy<InitPackage>;
  indexRegistry: Lazy<IndexRegistry>;
  search: Lazy<SearchRegistry>;
  uninstall: Lazy<UninstallPackage>;
}

/** Runs the `pkg` command line; resolves with the exit status. */
export async function runCli(args: string[], dependencies: CliDependencies): Promise<number> {
  const { output } = dependencies;
  let status = 0;
  const exit = (code: number) => {
    status = Math.max(status, code);
  };
  try {
    if (isCompletion(args)) {
      // yargs's completion command prints its script for any arguments, --help included.
      if (args.some((arg) => arg === '--help' || arg === '-h')) {
        output.out(COMPLETION_HELP);
        return 0;
      }
      args = completionFor(args);
    }
    await withoutEagerHelp(commandLine(args, dependencies, exit)).parseAsync();
  } catch (error) {
    const json = args.includes('--json');
    const code = reportError(output, error, { json });
    if (error instanceof UsageError && !json) {
      const usage = await usageLine(args, dependencies, exit);
      const command = usage.split(/\s+[<[]/, 1)[0]!;
      output.err(`usage: ${usage}`);
      output.err(`run "${command} --help" for its options and examples`);
    }
    return code;
  }
  return status;
}

/**
 * The usage line of the command the arguments name, from a parser of its own, not yet
 * run. Not for `completion`: any parser given it prints the script (and one given a bad
 * global option before it threw again, out of the error report, as a stack trace).
 */
async function usageLine(args: string[], dependencies: CliDependencies, exit: (code: number) => void): Promise<string> {
  if (isCompletion(args)) return COMPLETION_HELP.split('\n', 1)[0]!;
  try {
    return (await commandLine(args, dependencies, exit).getHelp()).split('\n', 1)[0]!.trim();
  } catch {
    return (await commandLine([], dependencies, exit).getHelp()).split('\n', 1)[0]!.trim();
  }
}

const COMPLETION_HELP = `pkg completion [bash|zsh]

Print a shell completion script: for the shell named, else for $SHELL

Examples:
  pkg completion >> ~/.bashrc
  pkg completion zsh >> ~/.zshrc`;

/**
 * Whether the arguments run `completion`: yargs runs it wherever the word stands among
 * the positionals no other command took (`pkg --max-ratio 5 completion`), and a shell's
 * request for completions never does.
 */
function isCompletion(args: string[]): boolean {
  return !args.includes(COMPLETIONS_REQUEST) && args.filter((arg) => !arg.startsWith('-')).some((arg, i, words) => arg === 'completion' && !words.slice(0, i).some((word) => KNOWN_COMMANDS.has(word)));
}

/** The option yargs's completion script passes to ask for the words that may follow. */
const COMPLETIONS_REQUEST = '--get-yargs-completions';

/**
 * `pkg completion [bash|zsh]`, nothing else: yargs prints the script before it checks the
 * arguments, so `pkg completion --json >> ~/.bashrc` appended the script and an error
 * object, and `pkg completion bash extra` the script and "Unknown command". Its
 * completion command takes no shell and picks one by $SHELL, so the shell named is given
 * to it that way (and a named one is no unknown command).
 */
function completionFor(args: string[]): string[] {
  const [command, shell, ...extra] = args;
  if (command !== 'completion' || extra.length > 0 || shell?.startsWith('-')) {
    throw new UsageError(`pkg completion takes the shell (bash or zsh) and nothing else (got ${args.map((arg) => JSON.stringify(arg)).join(' ')})`);
  }
  if (shell === undefined) return args;
  if (shell !== 'bash' && shell !== 'zsh') throw new UsageError(`pkg completion writes a bash or zsh script (got ${JSON.stringify(shell)})`);
  process.env.SHELL = `/bin/${shell}`;
  return [command];
}

function commandLine(args: string[], dependencies: CliDependencies, exit: (code: number) => void): Argv {
  const { output } = dependencies;
  return yargs(args)
    .scriptName('pkg')
    .usage('$0 <command>\n\nPack, validate, sign, encrypt, test, publish, install and serve content packages (.cap).')
    .command('package', 'Work with one package: pack, unpack, validate, test, sign, verify-signature, encrypt, decrypt, info, manifest, routes, metadata, storage, push', (y) =>
      packageCommands(y, dependencies.package, output, exit),
    )
    .command('reactor', 'Run the reactor HTTP server: serve; move its overlays: overlay copy', (y) => reactorCommands(y, dependencies.reactor, dependencies.copyOverlays, output))
    .command(installCommand(dependencies.install, output))
    .command(initCommand(dependencies.init, output))
    .command(registryCommands(dependencies.indexRegistry, output))
    .command(searchCommand(dependencies.search, output))
    .command(uninstallCommand(dependencies.uninstall, output))
    .demandCommand(1, 'name a command')
    .options(ARCHIVE_LIMIT_OPTIONS)
    .middleware(refuseRepeatedOptions)
    .middleware(applyArchiveLimits)
    .strictCommands()
    .strict()
    .recommendCommands()
    .version(dependencies.version)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .exitProcess(false)
    .completion('completion', 'Print a shell completion script (bash or zsh): pkg completion >> ~/.bashrc')
    .fail((message, error) => {
      throw error ?? new UsageError(misspelled(args, message));
    });
}

/**
 * yargs lays out the running command's help text as soon as its handler starts, in case
 * the handler fails later; measuring every line (string-width segments each one) cost
 * 25 ms of the reactor's 260 ms cold start. runCli builds that help only when a usage
 * error needs it, so the eager copy is skipped. This reaches into yargs internals: when
 * they are not there, nothing is skipped and only speed is lost.
 */
function withoutEagerHelp(cli: Argv): Argv {
  const usage = (cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: unknown } } }).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => undefined;
  return cli;
}

/** Options and positionals that take several values; yargs makes any other repeated option an array too. */
const REPEATABLE = new Set(['_', '$0', 'mount', 'sources', 'trust', 'cors']);

/** A single-valued option given twice would reach its handler as an array: refuse it. */
function refuseRepeatedOptions(argv: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(argv)) {
    if (Array.isArray(value) && !REPEATABLE.has(name)) throw new UsageError(`--${name} was given more than once`);
  }
}

/** yargs says only "Did you mean pack?": name the word that was not a command too. */
function misspelled(args: string[], message: string): string {
  const suggestion = /^Did you mean (\S+)\?$/.exec(message)?.[1];
  if (!suggestion) return message;
  const unknown = args.find((arg) => !arg.startsWith('-') && arg !== suggestion && !KNOWN_PARENTS.has(arg));
  return unknown ? `unknown command "${unknown}": did you mean "${suggestion}"?` : message;
}

/** Commands that hold others: an argument naming one is not the misspelled word. */
const KNOWN_PARENTS = new Set(['package', 'reactor']);

/** The commands besides `completion`: a `completion` after one of them is its argument (`pkg search completion`). */
const KNOWN_COMMANDS = new Set([...KNOWN_PARENTS, 'install', 'init', 'registry', 'search', 'uninstall']);

