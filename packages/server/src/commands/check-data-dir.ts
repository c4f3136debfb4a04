import { type Config, ConfigError } from '../config/config.js';
import { DataDirUnusable, ensureDataDir } from '../store/sqlite/data-dir.js';

/** Makes sure the configured data dir can be used, else a configuration error naming the setting. */
export function checkDataDir(config: Config): void {
  try {
    ensureDataDir(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirUnusable)
      throw new ConfigError(`${config.settingNames.dataDir} ${error.message}`);
    throw error;
  }
}
