import { ContainerModule } from 'inversify';
import { FsDirectoryWriter } from '../../adapters/fs/fs-directory-writer.js';
import { FsFileWriter } from '../../adapters/fs/fs-file-writer.js';
import { FsOverlayStore } from '../../adapters/fs/fs-overlay-store.js';
import { FsPackageTemplates } from '../../adapters/fs/fs-package-templates.js';
import { FsSourceWatcher } from '../../adapters/fs/fs-source-watcher.js';
import { FsStoreDirectories } from '../../adapters/fs/fs-store-directory.js';
import { FsWorkdirs } from '../../adapters/fs/fs-workdirs.js';
import { LocalPackageOpener } from '../../adapters/fs/local-package-opener.js';
import { PORT } from '../service-ids.js';
import { SelectedOverlayBackends } from '../overlay-backends.js';
import { templatesDirectory } from '../toolkit-root.js';

/** The local file system: package directories, outputs, overlays, stores, workdirs, templates. */
export const fsModule = new ContainerModule(({ bind }) => {
  bind(PORT.PackageOpener).toDynamicValue((context) => new LocalPackageOpener(context.get(PORT.ArchiveOpener))).inSingletonScope();
  bind(PORT.DirectoryWriter).toDynamicValue(() => new FsDirectoryWriter()).inSingletonScope();
  bind(PORT.FileWriter).toDynamicValue(() => new FsFileWriter()).inSingletonScope();
  bind(PORT.OverlayStore).toDynamicValue(() => new FsOverlayStore()).inSingletonScope();
  // The workdir's files unless `--overlay` names a database.
  bind(PORT.OverlayBackends).toDynamicValue((c) => new SelectedOverlayBackends({ overlays: c.get(PORT.OverlayStore), revocations: c.get(PORT.SessionRevocationStore) })).inSingletonScope();
  bind(PORT.StoreDirectories).toDynamicValue(() => new FsStoreDirectories()).inSingletonScope();
  bind(PORT.PackageTemplates).toDynamicValue(() => new FsPackageTemplates(templatesDirectory())).inSingletonScope();
  bind(PORT.Workdirs).toDynamicValue(() => new FsWorkdirs()).inSingletonScope();
  bind(PORT.SourceWatcher).toDynamicValue(() => new FsSourceWatcher()).inSingletonScope();
});
