// pkg package pack / validate on 10,000 files (about 200 MB, mixed text and random bytes),
// beside the work they cannot avoid, measured in the same run on the same files.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, OUT, best, fmt, has, shell, timed, verdict } from './lib.js';

const FILES = 10_000;
/** The 10,000-file package directory, made once and kept in bench/out (the cold-start bench serves it too). */
export const fixture = join(OUT, 'pack-fixture');
const WORDS = 'package content reactor layer route dataset manifest signature archive verify serve mount overlay schema version registry'.split(' ');

function textOf(size, seed) {
  let text = '';
  let i = seed;
  while (text.length < size) {
    i = (i * 1103515245 + 12345) & 0x7fffffff;
    text += WORDS[i % WORDS.length] + (i % 11 === 0 ? '\n' : ' ');
  }
  return text.slice(0, size);
}

export function makeFixture() {
  if (existsSync(join(fixture, 'metadata.json'))) return;
  rmSync(fixture, { recursive: true, force: true });
  mkdirSync(fixture, { recursive: true });
  writeFileSync(join(fixture, 'metadata.json'), JSON.stringify({ name: 'bench-pack', version: '1.0.0', description: 'benchmark', guid: 'pkg://bench/pack', uuid: '00000000-0000-0000-0000-000000000000' }));
  for (let i = 0; i < FILES; i++) {
    const dir = join(fixture, 'content', `d${i % 100}`);
    if (i < 100) mkdirSync(dir, { recursive: true });
    // Sizes from 1 KB to about 39 KB, averaging 20 KB: half text, half incompressible bytes.
    const size = 1024 + ((i * 7919) % 38_912);
    if (i % 2 === 0) writeFileSync(join(dir, `page-${i}.html`), textOf(size, i));
    else writeFileSync(join(dir, `blob-${i}.bin`), randomBytes(size));
  }
}

export function run() {
  for (const tool of ['zip', 'unzip', 'sha256sum']) if (!has(tool)) return console.log(`pack bench skipped: ${tool} is not installed`);
  makeFixture();
  const size = shell(`du -sb ${fixture} | cut -f1`).stdout.trim();
  console.log(`\n== pack / validate: ${FILES + 1} files, ${(Number(size) / 1e6).toFixed(0)} MB ==`);
  const work = join(OUT, 'pack-work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  shell(`cat $(find ${fixture} -type f) > /dev/null`); // warm the page cache for both sides

  const zip = best(2, () => shell(`rm -f ${work}/floor.zip && cd ${fixture} && zip -r -6 -q ${work}/floor.zip .`));
  const sums = best(2, () => shell(`cd ${fixture} && find . -type f -print0 | xargs -0 sha256sum > ${work}/SUMS`));
  const packFloor = zip.seconds + sums.seconds;
  const pack = best(2, () => timed('node', [CLI, 'package', 'pack', fixture, '-o', work, '--force']));
  console.log(`floor: zip -r -6 ${fmt(zip.seconds)} s + sha256sum ${fmt(sums.seconds)} s = ${fmt(packFloor)} s`);
  console.log(`pkg package pack: ${fmt(pack.seconds)} s, peak ${fmt(pack.peakMb, 0)} MB`);
  console.log(`pack ratio: ${verdict(pack.seconds / packFloor, 1.3)}; peak memory ${fmt(pack.peakMb, 0)} MB (target < 200 MB)`);

  const cap = join(work, 'bench-pack-1.0.0.cap');
  const extracted = join(work, 'extracted');
  shell(`rm -rf ${extracted} && unzip -q ${cap} -d ${extracted} && cd ${extracted} && find . -type f ! -name security.json -print0 | xargs -0 sha256sum > ${work}/CAPSUMS`);
  const test = best(2, () => shell(`unzip -tq ${cap}`));
  const check = best(2, () => shell(`cd ${extracted} && sha256sum -c --quiet ${work}/CAPSUMS`));
  const validateFloor = test.seconds + check.seconds;
  const validate = best(2, () => timed('node', [CLI, 'package', 'validate', cap]));
  console.log(`floor: unzip -t ${fmt(test.seconds)} s + sha256sum -c ${fmt(check.seconds)} s = ${fmt(validateFloor)} s`);
  console.log(`pkg package validate: ${fmt(validate.seconds)} s, peak ${fmt(validate.peakMb, 0)} MB`);
  console.log(`validate ratio: ${verdict(validate.seconds / validateFloor, 1.0)}; peak memory ${fmt(validate.peakMb, 0)} MB (target < 200 MB)`);
}
