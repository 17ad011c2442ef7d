import type { DiffReport } from '../../application/use-cases/diff-packages.js';
import type { Changes } from '../../domain/package/package-diff.js';
import type { CliOutput } from './cli-output.js';
import { oneLine } from './terminal-text.js';

/** `diff`'s text form: a summary line per part, then `+`, `-` and `~` lines as diff(1) readers expect. */
export function printDiff(output: CliOutput, report: DiffReport): void {
  if (report.equal) {
    output.out(`No differences: ${report.from} and ${report.to} hold the same package`);
    return;
  }
  const { from, to } = report.identity;
  output.out(`${report.from}: ${from.name} ${from.version}${from.guid ? ` (${oneLine(from.guid)})` : ''}`);
  output.out(`${report.to}: ${to.name} ${to.version}${to.guid ? ` (${oneLine(to.guid)})` : ''}`);
  section(output, 'files', report.files, '  ');
  section(output, 'routes', report.routes, '  ');
  section(output, 'datasets', report.datasets, '  ');
  for (const [id, items] of Object.entries(report.datasets.items)) section(output, `dataset ${id} items`, items, '    ');
  if (report.signature.from !== report.signature.to) output.out(`signature: ${report.signature.from} -> ${report.signature.to}`);
  if (report.encryption.from !== report.encryption.to) output.out(`encryption: ${state(report.encryption.from)} -> ${state(report.encryption.to)}`);
}

function section(output: CliOutput, title: string, changes: Changes, indent: string): void {
  if (changes.added.length + changes.removed.length + changes.changed.length === 0) return;
  output.out(`${indent.slice(2)}${title}: ${changes.added.length} added, ${changes.removed.length} removed, ${changes.changed.length} changed`);
  // Paths, routes and item ids come from the packages: one line each, whatever they hold.
  for (const name of changes.added) output.out(`${indent}+ ${oneLine(name)}`);
  for (const name of changes.removed) output.out(`${indent}- ${oneLine(name)}`);
  for (const name of changes.changed) output.out(`${indent}~ ${oneLine(name)}`);
}

const state = (encrypted: boolean) => (encrypted ? 'encrypted' : 'not encrypted');
