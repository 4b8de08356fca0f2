// Types of docstore, the JavaScript client of docserver. Hand-written; checked with
// `tsc --noEmit --strict` (test/types.test.js).

/** A JSON value as the server sends it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value of an attribute, as this client gives it: numbers (ints, doubles), strings
 * (string, decimal, uuid, uri), booleans, Date, Uint8Array, or null. */
export type AttributeValue = null | boolean | number | string | Date | Uint8Array;

/** What an attribute accepts: its value type, or a bigint for integers and decimals. */
export type AttributeInput = AttributeValue | bigint | undefined;

/** The attribute types of the model format (docs/MODEL.md). */
export type AttributeType = "int16" | "int32" | "int64" | "double" | "float" | "decimal" | "string" | "bool" | "date" | "binary" | "uuid" | "uri";

/** A predicate argument: JSON values, Date, bytes, an object of a session, an array (for IN),
 * or a one-key wire form. */
export type Argument =
  | null | boolean | number | bigint | string | Date | Uint8Array | DocObject | Argument[]
  | { decimal: string } | { uuid: string } | { uri: string } | { date: string } | { binary: string } | { id: string };

/** A sort key: "title", "-plays" (descending), or the wire form. */
export type SortKey = string | { key: string; ascending?: boolean; caseInsensitive?: boolean };

export interface FetchOptions {
  /** A predicate in the NSPredicate format language (docs/PREDICATES.md). */
  predicate?: string | null;
  /** Values of the predicate's %@, %d, %K in order. */
  arguments?: Argument[];
  sort?: SortKey | SortKey[] | null;
  limit?: number | null;
  offset?: number | null;
  includeSubentities?: boolean;
  /** The seq of a save (from any server on the store) the answer must hold. */
  after?: number | null;
}

export interface CountOptions extends FetchOptions {}

export interface GetOptions {
  after?: number | null;
}

/** The server's answer to a save. */
export interface SaveResult {
  /** Permanent IDs by temporary ID. */
  ids: Record<string, string>;
  /** New versions of every saved or changed object. */
  versions: Record<string, number>;
  /** Every deleted object, cascades included. */
  deleted: string[];
  /** Objects the server changed that the save did not name (inverses, delete rules). */
  updated: string[];
  /** The number of the commit that made the save durable. */
  seq: number;
}

/** The server's answer to hello. */
export interface ServerInfo {
  server: string;
  version: string;
  protocol: number;
  storeUUID: string;
  modelHash: string;
  seq: number;
  [key: string]: Json;
}

export interface Notification {
  method: string;
  params: Json;
}

/** A transport carries one JSON text per message. */
export interface Transport {
  onmessage: (text: string) => void;
  onclose: (error: Error | null) => void;
  readonly address: string;
  open(): Promise<void>;
  send(text: string): void;
  close(): void;
  /** Stop reading, for flow control (optional). */
  pause?(): void;
  /** Read again after pause (optional). */
  resume?(): void;
}

export interface ClientOptions {
  /** TCP host, default 127.0.0.1. */
  host?: string;
  /** TCP port, default 7878. */
  port?: number;
  /** A WebSocket URL (ws://host:port/rpc) instead of TCP. */
  url?: string | null;
  /** A function that returns a new transport, for each connection. */
  transport?: (() => Transport) | null;
  /** The server's --auth-token. */
  token?: string | null;
  /** The author of this client's commits (hello's client). */
  clientName?: string;
  /** Milliseconds a request waits for its answer (0: no limit); default 30000. */
  timeout?: number;
  /** The server's line limit, checked before sending (0: no check); default 16 MiB. */
  maxLineBytes?: number;
  /** The longest answer line accepted (TCP); default 64 MiB + 4096. */
  maxMessageBytes?: number;
  /** Milliseconds to connect; default 10000. */
  connectTimeout?: number;
}

export interface SubscribeOptions {
  entity?: string | null;
  predicate?: string | null;
  arguments?: Argument[];
  since?: number | null;
  includeValues?: boolean;
  /** How many unread changes the client holds before it stops reading the connection
   * (the server then buffers, and past --subscription-buffer-bytes sends resync); default 1000. */
  buffer?: number;
}

export interface ChangesOptions {
  limit?: number | null;
  entity?: string | null;
  includeValues?: boolean;
}

export interface CallOptions {
  timeout?: number;
}

export declare function connect(options?: ClientOptions): Promise<Client>;

export declare class Client {
  constructor(options?: ClientOptions);
  token: string | null;
  clientName: string;
  timeout: number;
  maxLineBytes: number;
  serverInfo: ServerInfo | null;
  seq: number;
  readonly storeUUID: string | null;
  readonly modelHash: string | null;
  open(): Promise<this>;
  close(): void;
  call(method: string, params?: Record<string, unknown> | null, options?: CallOptions): Promise<any>;
  ping(): Promise<number>;
  model(): Promise<Model>;
  session(options?: { prefetch?: number; mergeChanges?: boolean }): Promise<Session>;
  fetch(entity: string, options?: FetchOptions): Promise<DocObject[]>;
  fetchIds(entity: string, options?: FetchOptions): Promise<string[]>;
  count(entity: string, options?: CountOptions): Promise<number>;
  get(ids: Array<string | DocObject>, options?: GetOptions): Promise<Array<DocObject | null>>;
  get(id: string | DocObject, options?: GetOptions): Promise<DocObject | null>;
  subscribe(options?: SubscribeOptions): Promise<Subscription>;
  changesPage(since: number, options?: ChangesOptions): Promise<ChangePage>;
  changes(since: number, options?: ChangesOptions): AsyncIterable<Change>;
  onNotification(listener: (notification: Notification) => void): () => void;
}

export declare class Session {
  constructor(client: Client, model: Model, options?: { prefetch?: number });
  readonly client: Client;
  readonly model: Model;
  readonly prefetch: number;
  fetch(entity: string, options?: FetchOptions): Promise<DocObject[]>;
  fetchIds(entity: string, options?: FetchOptions): Promise<string[]>;
  count(entity: string, options?: CountOptions): Promise<number>;
  get(ids: Array<string | DocObject>, options?: GetOptions): Promise<Array<DocObject | null>>;
  get(id: string | DocObject, options?: GetOptions): Promise<DocObject | null>;
  object(id: string | DocObject): DocObject;
  load(...objects: DocObject[]): Promise<void>;
  insert(entity: string, values?: Record<string, AttributeInput | DocObject | DocObject[] | null>): DocObject;
  delete(obj: DocObject): void;
  readonly hasChanges: boolean;
  readonly inserted: DocObject[];
  readonly updated: DocObject[];
  readonly deleted: DocObject[];
  save(): Promise<SaveResult>;
  rollback(): void;
  refresh(...objects: Array<DocObject | string>): Promise<void>;
  /** Makes the objects held show what a commit left in the store (see the README). */
  merge(change: Change | { seq?: number; inserted?: ChangedObject[]; updated?: ChangedObject[]; deleted?: string[] }): void;
  /** Ends the subscription of a session made with mergeChanges. */
  close(): void;
  /** The error that ended the subscription of a session made with mergeChanges. */
  mergeError: Error | null;
}

/** The value of a property: an attribute's value, a related object, or an array of them. */
export type PropertyValue = AttributeValue | DocObject | DocObject[];

/** An object of a session. Its properties are also reachable as JavaScript properties
 * (`song.title`), typed `any` here; `docserver codegen --lang typescript` gives typed interfaces. */
export declare class DocObject {
  readonly id: string | null;
  readonly entity: string;
  readonly entityDescription: Entity;
  readonly session: Session;
  readonly version: number | null;
  readonly isFault: boolean;
  readonly isInserted: boolean;
  readonly isDeleted: boolean;
  readonly hasChanges: boolean;
  readonly changedKeys: string[];
  get(key: string): PropertyValue;
  set(key: string, value: AttributeInput | DocObject | DocObject[] | null): void;
  add(key: string, item: DocObject): void;
  remove(key: string, item: DocObject): void;
  load(): Promise<this>;
  related(key: string): Promise<DocObject | DocObject[] | null>;
  toJSON(): { id: string | null; entity: string; version: number | null; values: Record<string, unknown> };
  [property: string]: any;
}

/** An object in a change: values in wire form, or null when sent without values. */
export interface ChangedObject {
  id: string;
  entity: string;
  version: number;
  values: Record<string, Json> | null;
}

export declare class Change {
  constructor(params: Json);
  seq: number;
  author: string | null;
  timestamp: string | null;
  subscription: number | null;
  inserted: ChangedObject[];
  updated: ChangedObject[];
  deleted: string[];
  removed: string[];
}

export interface ChangePage {
  changes: Change[];
  seq: number;
  more: boolean;
}

export declare class Subscription implements AsyncIterable<Change> {
  readonly client: Client;
  readonly buffer: number;
  id: number | null;
  seq: number | null;
  readonly isOpen: boolean;
  next(timeout?: number): Promise<Change | null>;
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<Change>;
}

export declare class Model {
  constructor(raw: Json);
  raw: Json;
  entities: Map<string, Entity>;
  entity(name: string): Entity;
  isKindOf(entity: string, ancestor: string): boolean;
}

export declare class Entity {
  name: string;
  parent: string | null;
  abstract: boolean;
  properties: Map<string, Attribute | Relationship>;
  readonly attributes: Attribute[];
  readonly relationships: Relationship[];
  property(key: string): Attribute | Relationship;
}

export declare class Attribute {
  kind: "attribute";
  name: string;
  type: AttributeType;
  optional: boolean;
  default: AttributeValue;
}

export declare class Relationship {
  kind: "relationship";
  name: string;
  destination: string;
  inverse: string | null;
  toMany: boolean;
  ordered: boolean;
  deleteRule: "nullify" | "cascade" | "deny" | "noAction" | string;
  optional: boolean;
  minCount: number | null;
  maxCount: number | null;
}

export declare const DEFAULT_MAX_LINE_BYTES: number;
export declare const DEFAULT_MAX_MESSAGE_BYTES: number;

export interface ConnectionOptions {
  timeout?: number;
  maxLineBytes?: number;
  onNotification?: (notification: Notification) => void;
  onClose?: (error: Error) => void;
}

export declare class Connection {
  constructor(transport: Transport, options?: ConnectionOptions);
  static open(transport: Transport, options?: ConnectionOptions): Promise<Connection>;
  readonly isOpen: boolean;
  readonly inFlight: number;
  call(method: string, params?: Record<string, unknown> | null, options?: CallOptions): Promise<any>;
  close(error?: Error | null): void;
}

export declare class TcpTransport implements Transport {
  constructor(options?: { host?: string; port?: number; maxMessageBytes?: number; connectTimeout?: number });
  host: string;
  port: number;
  onmessage: (text: string) => void;
  onclose: (error: Error | null) => void;
  readonly address: string;
  open(): Promise<void>;
  send(text: string): void;
  close(): void;
  pause(): void;
  resume(): void;
}

/** The constructor of a WebSocket (the global one in browsers). */
export interface WebSocketConstructor {
  new (url: string): {
    send(data: string): void;
    close(): void;
    onopen: ((event: any) => void) | null;
    onclose: ((event: any) => void) | null;
    onerror: ((event: any) => void) | null;
    onmessage: ((event: any) => void) | null;
  };
}

export declare class WebSocketTransport implements Transport {
  constructor(options: { url: string; WebSocket?: WebSocketConstructor; connectTimeout?: number });
  url: string;
  onmessage: (text: string) => void;
  onclose: (error: Error | null) => void;
  readonly address: string;
  open(): Promise<void>;
  send(text: string): void;
  close(): void;
  pause(): void;
  resume(): void;
}

export declare function argumentToWire(value: Argument): Json;
export declare function toWire(type: AttributeType, value: AttributeInput, what?: string): Json;
export declare function fromWire(type: AttributeType, value: Json): AttributeValue;
export declare function entityOfID(id: string): string | null;

export interface ErrorOptions {
  code?: number | null;
  data?: Json;
  cause?: unknown;
}

export declare class DocstoreError extends Error {
  constructor(message: string, options?: ErrorOptions);
  code: number | null;
  data: Json;
}
export declare class ProtocolError extends DocstoreError {}
export declare class InvalidParamsError extends ProtocolError {
  readonly path: string | null;
  readonly reason: string | null;
  readonly position: number | null;
}
export interface Conflict { id: string; expected: number | null; current: number | null }
export declare class ConflictError extends DocstoreError {
  readonly conflicts: Conflict[];
  readonly ids: string[];
}
export interface ValidationFailure { id: string | null; entity: string | null; key: string | null; reason: string | null }
export declare class ValidationError extends DocstoreError {
  readonly failures: ValidationFailure[];
}
export declare class NotFoundError extends DocstoreError {
  readonly ids: string[];
}
export declare class AuthError extends DocstoreError {}
export declare class TooLargeError extends ProtocolError {
  readonly what: string | null;
  readonly limit: number | null;
}
export declare class StoreUnavailableError extends DocstoreError {}
export declare class TimeLimitError extends DocstoreError {}
export declare class ServerBusyError extends DocstoreError {}
export declare class HistoryExpired extends DocstoreError {
  readonly since: number | null;
  readonly oldest: number | null;
}
export declare class NotCaughtUp extends DocstoreError {
  readonly after: number | null;
  readonly applied: number | null;
}
export declare class ConnectionError extends DocstoreError {}
export declare class TimeoutError extends ConnectionError {}
export declare class ResyncRequired extends DocstoreError {
  constructor(message: string, options?: { seq?: number | null; reason?: string | null });
  seq: number | null;
  reason: string | null;
}
export declare class ModelError extends DocstoreError {}
export declare class ValueConversionError extends DocstoreError {}
export declare class ObjectDeletedError extends DocstoreError {}
export declare class FaultError extends DocstoreError {}
export declare function errorClassFor(code: number): typeof DocstoreError;
export declare function errorFromResponse(error: unknown): DocstoreError;
