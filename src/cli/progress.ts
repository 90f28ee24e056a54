/**
 * A tiny progress bar for terminals (stderr only, so stdout stays clean for --json and pipes).
 * Redraws at most every 100 ms.
 */
export function progressBar(stream: NodeJS.WriteStream): {
  update: (done: number, total: number) => void;
  done: () => void;
} {
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number): void => {
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 30));
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * width);
    stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${Math.round(ratio * 100)}%`);
    drawn = true;
  };
  return {
    update(done, total) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw(done, total);
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
