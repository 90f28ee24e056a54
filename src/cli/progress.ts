/**
 * A tiny progress bar for terminals (stderr only, so stdout stays clean for --json and pipes).
 * Redraws at most every 100 ms.
 */
export function progressBar(stream: NodeJS.WriteStream): {
  /** `detail`: a few words after the count (e.g. a rate), kept on the same line. */
  update: (done: number, total: number, detail?: string) => void;
  done: () => void;
} {
  let last = 0;
  let drawn = false;
  let widest = 0;
  const draw = (done: number, total: number, detail: string): void => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 30));
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${Math.round(ratio * 100)}%${detail ? ` ${detail}` : ''}`;
    // A shorter line than the last must not leave the old one's end on screen.
    stream.write(`\r${line}${' '.repeat(Math.max(0, widest - line.length))}`);
    widest = Math.max(widest, line.length);
    drawn = true;
  };
  return {
    update(done, total, detail = '') {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done, total, detail);
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
