import { Log, Logger, LogLevel } from 'crawlee';

/** A logged line. */
export interface CapturedLine {
  level: LogLevel;
  message: string;
}

class CaptureLogger extends Logger {
  constructor(readonly lines: CapturedLine[]) {
    super({});
  }

  override log(level: LogLevel, message: string): void {
    this.lines.push({ level, message });
  }
}

/**
 * A Crawlee `Log` that records every line (children included) instead of printing it.
 *
 * @example
 * const { log, lines } = captureLog();
 * new RobotsStore({ userAgent: 'x', log });
 * lines.filter((line) => line.level === LogLevel.WARNING);
 */
export function captureLog(): { log: Log; lines: CapturedLine[]; warnings: () => string[] } {
  const lines: CapturedLine[] = [];
  const log = new Log({ level: LogLevel.DEBUG, logger: new CaptureLogger(lines) });
  return {
    log,
    lines,
    warnings: () => lines.filter((line) => line.level === LogLevel.WARNING).map((line) => line.message),
  };
}
