// tsc does not keep the executable bit, and npm links the bin only when it is set.
import { chmodSync } from 'node:fs';
chmodSync(new URL('../dist/src/composition/cli-main.js', import.meta.url), 0o755);
