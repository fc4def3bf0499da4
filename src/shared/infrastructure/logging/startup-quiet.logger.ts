import { LoggerService, LogLevel } from '@nestjs/common';

/**
 * Nest's startup chatter — a line per module loaded (InstanceLoader), per controller
 * (RoutesResolver) and per route (RouterExplorer), ~70 lines before the banner — is written at
 * debug level instead of info: shown with LOG_LEVEL=debug or trace, hidden by default.
 * Everything else passes through unchanged.
 */
export const DEBUG_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

export class StartupQuietLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && DEBUG_CONTEXTS.has(context) && this.inner.debug) return this.inner.debug(message, ...optionalParams);
    this.inner.log(message, ...optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug?.(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...optionalParams);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.inner.setLogLevels?.(levels);
  }
}
