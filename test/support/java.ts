import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether the machine has a JDK's `jar`: tests that run it are skipped without (CI does not install one). */
export const HAS_JAR = spawnSync('jar', ['--version']).status === 0;
/** Whether the machine has `java` (11 or later, which runs a source file): tests that run it are skipped without. */
export const HAS_JAVA = spawnSync('java', ['--version']).status === 0;

const ZIP_INPUT_STREAM = `
import java.io.*;
import java.util.zip.*;
public class ReadZip {
  public static void main(String[] args) throws Exception {
    try (ZipInputStream zip = new ZipInputStream(new BufferedInputStream(new FileInputStream(args[0])))) {
      byte[] buffer = new byte[65536];
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        CRC32 crc = new CRC32();
        long size = 0;
        for (int n = zip.read(buffer); n > 0; n = zip.read(buffer)) { crc.update(buffer, 0, n); size += n; }
        System.out.println(entry.getName() + " " + size + " " + Long.toHexString(crc.getValue()));
      }
    }
  }
}`;

/**
 * Each entry of a ZIP as Java's ZipInputStream reads it, front to back without the central
 * directory (as a streaming reader does): name to `<size> <crc32 hex>`.
 */
export function readWithZipInputStream(file: string): Record<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'zip-input-stream-'));
  try {
    writeFileSync(join(directory, 'ReadZip.java'), ZIP_INPUT_STREAM);
    const output = execFileSync('java', [join(directory, 'ReadZip.java'), file], { encoding: 'utf8' });
    return Object.fromEntries(output.trim().split('\n').map((line) => {
      const [name, size, crc] = line.split(' ');
      return [name!, `${size} ${crc}`];
    }));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
