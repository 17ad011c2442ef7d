import { ContainerModule } from 'inversify';
import { ZipArchiveWriter } from '../../adapters/archive/zip-archive-writer.js';
import { ZipPackageOpener } from '../../adapters/archive/zip-package-opener.js';
import { PORT } from '../service-ids.js';

/** Our own ZIP reader and writer. */
export const archiveModule = new ContainerModule(({ bind }) => {
  bind(PORT.ArchiveOpener).toDynamicValue(() => new ZipPackageOpener()).inSingletonScope();
  bind(PORT.ArchiveWriter).toDynamicValue(() => new ZipArchiveWriter()).inSingletonScope();
});
