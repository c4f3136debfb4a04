import { type Config, ConfigError } from './config.js';

/** A listen error the operator caused by a setting, named as they gave it. */
export function listenRefusal(error: unknown, config: Config): ConfigError | undefined {
  const { port, host } = config.settingNames;
  switch ((error as { code?: string }).code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `${port} ${config.port} is already in use on ${config.host}: stop what listens there, or choose another ${port}`,
      );
    case 'EACCES':
      return new ConfigError(`${port} ${config.port} needs privileges this process does not have`);
    case 'EADDRNOTAVAIL':
      return new ConfigError(`${host} ${config.host} is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return new ConfigError(`${host} ${config.host} does not resolve to an address`);
    default:
      return undefined;
  }
}
