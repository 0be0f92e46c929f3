// The benches' command lines: `--flag` and `--flag value` pairs walked in order.

/**
 * Calls `take(flag, value)` for each flag; `value()` consumes the next argument (an error when
 * there is none). `take` returns false for a flag it does not know, which is an error too.
 */
export function walkOptions(argv: readonly string[], take: (flag: string, value: () => string) => boolean): void {
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${flag} needs a value`);
      return x;
    };
    if (!take(flag, value)) throw new Error(`unknown option ${flag}`);
  }
}
