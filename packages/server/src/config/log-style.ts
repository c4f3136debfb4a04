import type { Config } from './config.js';

/** How this process writes its log: readable or JSON lines, with or without a line per request. */
export type LogStyle = { pretty: boolean; requests: boolean };

/**
 * LOG_FORMAT and LOG_REQUESTS against where stdout goes: `auto` is readable on a terminal and JSON lines
 * otherwise (a file, a pipe, a log collector, a test reading the child's output); request lines follow
 * the format unless set (off when readable: a few open pages would fill the terminal).
 */
export function logStyle(config: Pick<Config, 'logFormat' | 'logRequests'>, stdoutIsTTY: boolean): LogStyle {
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && stdoutIsTTY);
  const requests = config.logRequests === 'auto' ? !pretty : config.logRequests;
  return { pretty, requests };
}
