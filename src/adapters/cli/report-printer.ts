import type { ValidationReport } from '../../domain/validation/check-report.js';
import type { PackageInfo, ResolvedNode } from '../../application/use-cases/inspect-package.js';
import type { TestReport } from '../../application/use-cases/test-package.js';
import type { CliOutput } from './cli-output.js';
import { oneLine } from './terminal-text.js';

export function printValidation(output: CliOutput, report: ValidationReport): void {
  output.out(`Validating ${report.source}`);
  for (const check of report.checks) {
    const said = check.passed ? check.notes.filter((n) => !n.startsWith('warning:')) : [];
    const notes = said.length > 0 ? `  (${oneLine(said.join('; '))})` : '';
    output.out(`${check.passed ? 'PASS' : 'FAIL'} ${check.check}${notes}`);
    // What a check says quotes the package (paths, keys, values): one line each.
    for (const error of check.errors) output.out(`  - ${oneLine(error)}`);
    for (const note of check.notes.filter((n) => n.startsWith('warning:'))) output.out(`  ! ${oneLine(note.slice('warning: '.length))}`);
  }
  const failed = report.checks.filter((c) => !c.passed).length;
  output.out(failed === 0 ? `Result: valid (${report.checks.length} checks passed)` : `Result: invalid (${failed} of ${report.checks.length} checks failed)`);
}

export function printInfo(output: CliOutput, info: PackageInfo): void {
  const rows: Array<[string, string | undefined]> = [
    ['Name', info.name],
    ['Version', info.version],
    ['Description', info.description],
    ['GUID', info.guid],
    ['UUID', info.uuid],
    ['Author', info.author],
    ['License', info.license],
    ['Source', `${info.source} (${info.kind})`],
    ['Files', `${info.files} (${info.bytes} bytes)`],
    ['Writable', info.readOnly ? 'no (readOnly)' : 'yes'],
    ['Signed', info.signed ? 'yes' : 'no'],
    ['Routes', `${info.routes}${info.generated.includes('routes.json') ? ' (generated)' : ''}`],
    ['Datasets', info.datasets.length > 0 ? info.datasets.join(', ') : 'none'],
  ];
  for (const [label, value] of rows) if (value !== undefined) output.out(`${(label + ':').padEnd(13)}${oneLine(value)}`);
  output.out('Dependencies:' + (info.dependencies.length === 0 ? ' none' : ''));
  if (info.resolved) printTree(output, info.resolved, '  ');
  else for (const dependency of info.dependencies) output.out(`  ${oneLine(dependency.guid)} ${oneLine(dependency.range)}`);
  if (info.unresolved) output.out(`  unresolved: ${info.unresolved}`);
}

/** `<guid> <range> -> <version> (<where from>: <file>)`, each level indented below its dependent. */
function printTree(output: CliOutput, nodes: readonly ResolvedNode[], indent: string): void {
  for (const node of nodes) {
    output.out(`${indent}${node.guid} ${node.range} -> ${node.version} (${node.source}: ${node.file})${node.deduped ? ', its dependencies as listed above' : ''}`);
    printTree(output, node.dependencies, `${indent}  `);
  }
}

export function printTestReport(output: CliOutput, report: TestReport): void {
  output.out(`Testing ${report.source}`);
  if (report.results.length === 0) output.out('No tests: the package has no tests/*.yaml');
  for (const result of report.results) {
    // A test's name and what it asked for are the package author's text: one line each, whatever they hold.
    output.out(`${result.passed ? 'PASS' : 'FAIL'} ${oneLine(result.name)} (${result.type}, ${result.file})`);
    for (const message of result.messages) output.out(`  - ${oneLine(message)}`);
  }
  output.out(`${report.passed} passed, ${report.failed} failed`);
}
