import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type Args = Parameters<FastifyBaseLogger['info']>;

/** pino's check; a logger without it (fastify's abstract one) counts every level as enabled. */
function enabled(logger: FastifyBaseLogger, level: Level): boolean {
  const check = (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled;
  return typeof check === 'function' ? check.call(logger, level) : true;
}

/**
 * `parent.child(bindings)`, created on first use. A pino child of a per-request logger is costly (each
 * one becomes a new prototype), and most requests never log through it: until a method of an enabled
 * level is called (or `child`, or the level is set), nothing is created and the calls cost a level check.
 * Once created, every call goes to the real child, so what is written is what an eager child would write.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  #parent: FastifyBaseLogger;
  #bindings: Bindings;
  #child: FastifyBaseLogger | null = null;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): FastifyBaseLogger {
    if (this.#child === null) this.#child = this.#parent.child(this.#bindings);
    return this.#child;
  }

  #log(level: Level, args: Args): void {
    if (this.#child === null && !enabled(this.#parent, level)) return;
    (this.#real()[level] as (...a: Args) => void)(...args);
  }

  get level(): FastifyBaseLogger['level'] {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#real().level = level;
  }

  fatal(...args: Args): void {
    this.#log('fatal', args);
  }
  error(...args: Args): void {
    this.#log('error', args);
  }
  warn(...args: Args): void {
    this.#log('warn', args);
  }
  info(...args: Args): void {
    this.#log('info', args);
  }
  debug(...args: Args): void {
    this.#log('debug', args);
  }
  trace(...args: Args): void {
    this.#log('trace', args);
  }
  silent(..._args: Args): void {}

  child(...args: Parameters<FastifyBaseLogger['child']>): FastifyBaseLogger {
    return this.#real().child(...args);
  }

  isLevelEnabled(level: string): boolean {
    return enabled(this.#child ?? this.#parent, level as Level);
  }
}
