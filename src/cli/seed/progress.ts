/**
 * A one-line progress bar on stderr (redrawn in place on a terminal, a line every few
 * seconds otherwise, so logs of CI runs stay readable).
 */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDraw = 0;
  private readonly tty = process.stderr.isTTY === true;

  constructor(
    private readonly expected: number,
    private readonly label: string,
  ) {}

  update(done: number, detail = ''): void {
    const now = Date.now();
    if (done < this.expected && now - this.lastDraw < (this.tty ? 100 : 5000)) return;
    this.lastDraw = now;
    const fraction = this.expected > 0 ? Math.min(1, done / this.expected) : 1;
    const width = 30;
    const filled = Math.round(fraction * width);
    const elapsed = (now - this.started) / 1000;
    const rate = elapsed > 0 ? Math.round(done / elapsed) : 0;
    const line =
      `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ` +
      `${done.toLocaleString('en-US')}/${this.expected.toLocaleString('en-US')} rows ${elapsed.toFixed(1)} s ${rate.toLocaleString('en-US')}/s ${detail}`;
    process.stderr.write(this.tty ? `\r${line.padEnd(110)}` : `${line}\n`);
  }

  finish(detail = ''): void {
    this.lastDraw = 0;
    this.update(this.expected, detail);
    if (this.tty) process.stderr.write('\n');
  }
}
