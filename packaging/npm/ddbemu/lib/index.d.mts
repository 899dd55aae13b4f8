// SPDX-License-Identifier: MIT
// Types of the ddbemu package (ES module: import { start } from "ddbemu").

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

// ---- Parallel workers from one seed: snapshots and forks -------------------

/** Where the control routes are: default process.env.DDBEMU_ENDPOINT. */
export interface ControlOptions {
  /** The server's URL, e.g. server.endpoint (default: process.env.DDBEMU_ENDPOINT). */
  endpoint?: string;
}

export interface SaveSnapshotOptions extends ControlOptions {
  /** The access key whose tables to save. */
  accessKeyId: string;
  /** Their region (default "us-east-1"). */
  region?: string;
}

/** What the server says about a snapshot (GET /ddbemu/snapshots). */
export interface SnapshotInfo {
  name: string;
  /** "<access key>/<region>" (absent for a snapshot of every namespace). */
  namespace?: string;
  created_ms: number;
  tables: number;
  items: number;
  stream_records: number;
}

export interface ForkOptions extends ControlOptions {
  /** The worker id (default: workerId()). */
  workerId?: string | number;
  /** Prepended to the worker id to make the access key (default "ddbemu"). */
  prefix?: string;
  /** The secret in the credentials (default "ddbemu"; checked only under --credentials). */
  secretAccessKey?: string;
}

export interface WorkerCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A worker's own namespace, forked from a snapshot. */
export interface WorkerFork {
  readonly endpoint: string;
  /** The snapshot's region: a fork keeps the region it was saved from. */
  readonly region: string;
  readonly snapshot: string;
  readonly workerId: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly credentials: WorkerCredentials;
  /** new DynamoDBClient(fork.clientConfig) */
  readonly clientConfig: { endpoint: string; region: string; credentials: WorkerCredentials };
  /** Forks the snapshot into this key again: the seed is back, this worker's writes are gone. */
  restore(): Promise<void>;
}

/** A control route answered an error (400 bad request, 404 no such snapshot, 409 name taken). */
export declare class ControlError extends Error {
  readonly status: number;
  readonly serverMessage: string;
}

/** Saves the tables of an access key (and region) as a named snapshot. */
export declare function saveSnapshot(name: string, options: SaveSnapshotOptions): Promise<SnapshotInfo>;

/** Deletes a snapshot. */
export declare function deleteSnapshot(name: string, options?: ControlOptions): Promise<void>;

/** Every snapshot on the server, oldest first. */
export declare function listSnapshots(options?: ControlOptions): Promise<SnapshotInfo[]>;

/** Forks `snapshot` into this worker's access key, replacing what it held. */
export declare function forkForWorker(
  snapshot: string,
  workerId?: string | number,
  options?: Omit<ForkOptions, "workerId">,
): Promise<WorkerFork>;
export declare function forkForWorker(snapshot: string, options?: ForkOptions): Promise<WorkerFork>;

/** JEST_WORKER_ID, else VITEST_POOL_ID, else VITEST_WORKER_ID, else this process's pid. */
export declare function workerId(env?: Record<string, string | undefined>): string;

/** prefix + worker id: the access key forkForWorker uses ("ddbemu1"). */
export declare function workerAccessKey(workerId?: string | number, prefix?: string): string;

declare const ddbemu: {
  start: typeof start;
  binaryPath: typeof binaryPath;
  ControlError: typeof ControlError;
  deleteSnapshot: typeof deleteSnapshot;
  forkForWorker: typeof forkForWorker;
  listSnapshots: typeof listSnapshots;
  saveSnapshot: typeof saveSnapshot;
  workerAccessKey: typeof workerAccessKey;
  workerId: typeof workerId;
};
export default ddbemu;
