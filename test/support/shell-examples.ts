import { readFileSync } from 'node:fs';

/** A shell example of a Markdown document: a ```sh block, or a ```console transcript. */
export interface Example {
  /** `README.md:123`, the line of the opening fence. */
  at: string;
  kind: 'sh' | 'console';
  lines: string[];
  /** Why it is not run, from `<!-- examples: not run (REASON) -->` on the line before it. */
  skip?: string;
}

const SCRATCH = /^mkdir -p scratch && cd scratch\b/;
const PRINTS = /^(.*\S)\s+# prints (.+)$/;
const HEREDOC = /<<-?\s*'?(\w+)'?/;

export function examplesOf(path: string, name: string): Example[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    // A block may be indented (inside a list item): its lines are read without that indent.
    const fence = /^( *)```(sh|console)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const indent = fence[1]!;
    const body: string[] = [];
    let end = i + 1;
    while (end < lines.length && lines[end] !== `${indent}\`\`\``) body.push(lines[end++]!.slice(indent.length));
    const skip = /^ *<!-- examples: not run \((.+)\) -->$/.exec(lines[i - 1] ?? '')?.[1];
    examples.push({ at: `${name}:${i + 1}`, kind: fence[2] as Example['kind'], lines: body, ...(skip ? { skip } : {}) });
    i = end;
  }
  return examples;
}

/** One bash script that runs the examples in order, as one terminal would. */
export function sessionScript(examples: Example[]): string {
  const out: string[] = [];
  for (const example of examples) {
    if (example.skip) {
      out.push(`echo ${quote(`[examples] not run: ${example.at}: ${example.skip}`)}`);
      continue;
    }
    out.push(`__block ${quote(example.at)}`);
    out.push(...(example.kind === 'sh' ? shellLines(example) : transcriptLines(example)));
    out.push('__block_end');
  }
  return out.join('\n') + '\n';
}

function shellLines(example: Example): string[] {
  const out: string[] = [];
  let heredoc: string | undefined;
  let continued = false;
  example.lines.forEach((line, index) => {
    const at = `${example.at}+${index + 1}`;
    if (heredoc !== undefined || continued || line.trim() === '' || line.trimStart().startsWith('#')) {
      out.push(line);
      if (heredoc !== undefined && line === heredoc) heredoc = undefined;
      continued = heredoc === undefined && line.endsWith('\\');
      return;
    }
    out.push(`__run ${quote(at)} ${quote(line)}`);
    const prints = PRINTS.exec(line);
    if (SCRATCH.test(line)) out.push('cd "$EXAMPLES_SCRATCH"');
    else if (prints) out.push(`{ ${prints[1]}`, '} >"$__output" 2>&1 || __failed', `__prints ${quote(prints[2]!)}`);
    else out.push(line);
    heredoc = HEREDOC.exec(line)?.[1];
    continued = heredoc === undefined && line.endsWith('\\');
  });
  return out;
}

function transcriptLines(example: Example): string[] {
  const out: string[] = [];
  example.lines.forEach((line, index) => {
    if (!line.startsWith('$ ')) return;
    const command = line.slice(2);
    const shown: string[] = [];
    for (let next = index + 1; next < example.lines.length && !example.lines[next]!.startsWith('$ '); next++) shown.push(example.lines[next]!);
    out.push(`__run ${quote(`${example.at}+${index + 1}`)} ${quote(command)}`, `{ ${command}`, '} >"$__output" 2>&1 || __failed', "__transcript <<'__SHOWN__'", ...shown, '__SHOWN__');
  });
  return out;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
