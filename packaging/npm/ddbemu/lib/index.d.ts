// SPDX-License-Identifier: MIT
// Types of the ddbemu package (CommonJS: require("ddbemu")).

export interface StartOptions {
  /** Address to listen on (default "127.0.0.1"). */
  host?: string;
  /** TCP port (default 0: the system picks a free one; read it from `port`). */
  port?: number;
  /** One set of tables for every access key and region (--shared-db). Without
   * it, each access key + region sees its own tables: give each test worker its
   * own accessKeyId to isolate them on one server. */
  sharedDb?: boolean;
  /** Keep tables in SQLite files in this directory, loaded at start (--db-path). */
  dbPath?: string;
  /** More command-line arguments, e.g. ["--init", "tables.json"] (see `ddbemu --help`). */
  args?: readonly string[];
  /** The binary to run (default: DDBEMU_BIN, else the one for this platform). */
  binary?: string;
  /** Environment of the server process (default: this process's). */
  env?: Record<string, string | undefined>;
  /** How long to wait for the server to answer (default 30000). */
  startupTimeoutMs?: number;
  /** Receives the server's log output (stderr) as it arrives. */
  onStderr?: (chunk: string) => void;
}

export interface Server {
  /** The URL to give an SDK client, e.g. "http://127.0.0.1:41235". */
  readonly endpoint: string;
  readonly host: string;
  readonly port: number;
  readonly pid: number | undefined;
  /** Stops the server (SIGTERM; SIGKILL after 10 s) and resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts a server and resolves once it answers requests. */
export declare function start(options?: StartOptions): Promise<Server>;

/** The path of the ddbemu binary for this platform (or DDBEMU_BIN). */
export declare function binaryPath(): string;
