/** Where the CLI writes; the process streams in production, buffers in tests. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: CliOutput = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
};

export function printJson(output: CliOutput, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}
