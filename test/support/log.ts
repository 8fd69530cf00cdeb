import { Log, Logger, LogLevel } from 'crawlee';

/** A logged line. */
export interface CapturedLine {
  level: LogLevel;
  message: string;
}

class CaptureLogger extends Logger {
  constructor(
    readonly lines: CapturedLine[],
    readonly onLine?: (line: CapturedLine) => void,
  ) {
    super({});
  }

  override log(level: LogLevel, message: string): void {
    const line = { level, message };
    this.lines.push(line);
    this.onLine?.(line);
  }
}

/**
 * A Crawlee `Log` that records every line (children included) instead of printing it, and hands
 * each to `onLine` as it is logged.
 *
 * @example
 * const { log, lines } = captureLog();
 * new RobotsStore({ userAgent: 'x', log });
 * lines.filter((line) => line.level === LogLevel.WARNING);
 */
export function captureLog(onLine?: (line: CapturedLine) => void): {
  log: Log;
  lines: CapturedLine[];
  warnings: () => string[];
} {
  const lines: CapturedLine[] = [];
  const log = new Log({ level: LogLevel.DEBUG, logger: new CaptureLogger(lines, onLine) });
  return {
    log,
    lines,
    warnings: () => lines.filter((line) => line.level === LogLevel.WARNING).map((line) => line.message),
  };
}
