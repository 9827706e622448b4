// What the commands get from cli.ts, in a module of its own so that commands/ never imports cli.ts back.
export interface CliIo {
  out: { write(text: string): unknown; isTTY?: boolean };
  err: { write(text: string): unknown; isTTY?: boolean };
}

/** What a command needs from the outside world; tests pass their own. */
export interface CliContext {
  io: CliIo;
  env: Readonly<Record<string, string | undefined>>;
  print(text: string): void;
  printErr(text: string): void;
  /** The exit code the command ends with; the bin hands it to process.exitCode. */
  exit(code: number): void;
}
