import { relative, resolve, isAbsolute } from 'node:path';
import type { Argv } from 'yargs';
import type { CopyOverlays, OverlayPlace } from '../../application/use-cases/copy-overlays.js';
import { redactCredentials } from '../../domain/dependencies/registry-reference.js';
import { UsageError } from '../../domain/errors.js';
import type { CliOutput } from './cli-output.js';
import type { Lazy } from './lazy.js';

const DATABASE_URL = /^postgres(ql)?:\/\//i;

/** `pkg reactor overlay copy <from> <to>`: a workdir's overlays into a database several reactors share, or back. */
export function overlayCommands(yargs: Argv, copyOverlays: Lazy<CopyOverlays>, output: CliOutput): Argv {
  return yargs
    .command(
      'copy <from> <to>',
      'Copy every mount\'s overlay (written files, tombstones, dataset logs) from a workdir or a postgres:// database into another, which must hold none yet. Stop the reactors on both first.',
      (y) =>
        y
          .positional('from', { type: 'string', demandOption: true, describe: 'a reactor\'s workdir, or postgres://user@host:port/database' })
          .positional('to', { type: 'string', demandOption: true, describe: 'a workdir, or postgres://user@host:port/database' })
          .example('$0 reactor overlay copy ./work postgres://pkg@db:5432/site', 'one reactor\'s writes into the database several will share')
          .example('$0 reactor overlay copy postgres://pkg@db:5432/site ./work', 'and back'),
      async (argv) => {
        const from = place(argv.from);
        const to = place(argv.to);
        // Claiming one workdir twice reads as another reactor holding it.
        if (from.overlay === to.overlay && from.workdir === to.workdir) throw new UsageError(`overlay copy needs two places; ${describe(from)} is both <from> and <to>`);
        // A workdir inside the other would be read as one of its overlays (or hold the copy's source).
        if (from.overlay === undefined && to.overlay === undefined) {
          const [outer, inner] = isInside(to.workdir, from.workdir) ? [from, to] : isInside(from.workdir, to.workdir) ? [to, from] : [];
          if (outer && inner) throw new UsageError(`overlay copy needs two workdirs apart; ${inner.workdir} is inside ${outer.workdir}`);
        }
        const copied = await copyOverlays().execute(from, to);
        for (const { mount, files, tombstones, operations } of copied) {
          const logs = Object.entries(operations).map(([dataset, count]) => `${dataset} ${count} operation${count === 1 ? '' : 's'}`);
          output.out(`${mount.path} (${mount.packageName}): ${files} file${files === 1 ? '' : 's'}, ${tombstones} tombstone${tombstones === 1 ? '' : 's'}${logs.length ? `, ${logs.join(', ')}` : ''}`);
        }
        output.out(`Copied ${copied.length} overlay${copied.length === 1 ? '' : 's'} from ${describe(from)} to ${describe(to)}`);
      },
    )
    .demandCommand(1, 'name an overlay command')
    .strict();
}

function place(argument: string): OverlayPlace {
  return DATABASE_URL.test(argument) ? { overlay: argument, workdir: '' } : { workdir: resolve(argument) };
}

function describe(place: OverlayPlace): string {
  return place.overlay === undefined ? place.workdir : redactCredentials(place.overlay);
}

function isInside(path: string, folder: string): boolean {
  const below = relative(folder, path);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below);
}
