// npm run bench [scenario...]: runs bench/<scenario>.bench.js, all of them by default.
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const scenarios = readdirSync(here)
  .filter((file) => file.endsWith('.bench.js'))
  .filter((file) => wanted.length === 0 || wanted.includes(file.replace('.bench.js', '')));
for (const file of scenarios) {
  const scenario = await import(`./${file}`);
  await scenario.run();
}
