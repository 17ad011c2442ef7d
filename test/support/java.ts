import { spawnSync } from 'node:child_process';

/** Whether the machine has a JDK's `jar`: tests that run it are skipped without (CI does not install one). */
export const HAS_JAR = spawnSync('jar', ['--version']).status === 0;
